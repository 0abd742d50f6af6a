#!/usr/bin/env bash
# The hostile-input battery of issue 60, reproducible: about 1,500
# hostile invocations of ecmo_solve, ecmo_plot and ecmo_mtbl, each in a
# scratch directory of its own, under a time limit and a memory limit, and
# a series of SIGKILLs followed by --resume. Every outcome is classified
# from outside, whatever the tools say about themselves:
#
#   CRASH          exit status >= 128 (not a timeout), or a sanitizer report,
#                  "terminate called", "Segmentation fault", std::bad_alloc,
#                  a glog CHECK failure on stderr
#   HANG           the time limit was reached (timeout's status 124)
#   DATA LOSS      an input the tool must only read, or must refuse, is not
#                  byte-identical afterwards (sha256); a resumed file that
#                  does not keep its complete lines; after kill + --resume,
#                  a point missing, duplicated or different from an
#                  uninterrupted run's
#   FALSE SUCCESS  exit status 0 for an input that must be refused
#   WRONG STATUS   any other status than the case's expected one (a refusal
#                  with 1 instead of 2, a valid input refused)
#   BAD MESSAGE    a refusal (status 2 or 4) whose stderr is empty, longer
#                  than 4 kB, or lacks the fragment the case expects
#   (EXEC          the tool could not be started, status 126/127: no verdict
#                  on it; the run fails, as it does when the tools' sha256
#                  changes during the run: another build replaced them)
#
# Each case declares what it expects: `refuse` (status 2, or the documented
# code: ecmo_solve exits 4 for an I/O error while writing results), `ok`
# (status 0), `ran` (ecmo_solve solved it: 0, or 3 when a point is not
# certified), `any-nonzero`, or `any` (only crashes, hangs and losses count).
# The expectations come from README.md ("Command-line reference", exit
# status table), the tools' --help and tests/README.md.
#
# Usage: bash scripts/hostile_battery.sh [--quick] [--allow-known] [--jobs=N]
#                                        [--seed=N] [--keep] [BUILD_DIR]
#   BUILD_DIR  a build tree (its examples/ holds the three tools) or the
#              directory of the tools itself; default: build
#   --quick    a subset that runs in well under a minute (CTest:
#              hostile_battery_quick)
#   --allow-known  failures of the open defects listed in known_defects.tsv
#              are reported but do not fail the run; a listed defect whose
#              cases all pass does (remove it from the list). CTest uses it.
#              (The list is written in the "Report" part of this script.)
#   --jobs=N   cases run N at a time (default 2)
#   --seed=N   seed of the kill times (default 60)
#   --keep     keep the scratch directory (it is kept anyway on failure)
# Exit status: 0 no failure, 1 some failure (listed), 2 usage error.
#
# Limits: the tools run with `ulimit -v` 8 GiB (none for sanitizer builds,
# whose shadow memory needs more address space) and a 60 s timeout (180 s
# under sanitizers). Cases that need a directory root cannot be denied
# (chmod 000) are skipped, and said so, when the battery runs as root.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
SRC_DIR=$(dirname "$(dirname "$SELF")")

# ---------------------------------------------------------------------------
# One case (called by xargs): runs it and writes its verdict to $dir/result.
# ---------------------------------------------------------------------------
crash_pattern='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|MemorySanitizer|runtime error:|terminate called|Segmentation fault|std::bad_alloc|core dumped|Check failed:|Check failure stack trace|stack smashing|double free|free\(\): invalid|malloc\(\): '

sha_of() {
  if [[ -f $1 ]]; then sha256sum < "$1" | cut -d' ' -f1
  elif [[ -e $1 || -L $1 ]]; then echo "not-a-file"
  else echo "absent"
  fi
}

# The case's command line for the report: each argument cut to 70 chars.
show_cmd() {
  local out="$1" a
  shift
  for a in "$@"; do
    if (( ${#a} > 70 )); then
      out+=" $(printf '%q' "${a:0:40}")...<${#a} chars>"
    else
      out+=" $(printf '%q' "$a")"
    fi
  done
  printf '%s' "$out"
}

run_case() {
  local dir=$1
  cd "$dir"
  local C_TOOL C_CAT C_EXPECT C_FRAG C_SETUP C_STDIN C_NOTE C_CODES
  local -a C_RO C_REF C_PFX C_LINES C_CMD
  # shellcheck disable=SC1091
  source ./case.sh
  set +e
  if [[ -n $C_SETUP ]]; then
    if ! (eval "$C_SETUP") > setup.log 2>&1; then
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$C_TOOL" "$C_CAT" "$C_EXPECT" \
        "-" "0" "SETUP" "$(show_cmd "$C_TOOL" "${C_CMD[@]}")" > result
      return 0
    fi
  fi
  local -A before=()
  local f i=0
  for f in "${C_RO[@]}" "${C_REF[@]}" "${C_PFX[@]}" "${C_LINES[@]}"; do
    before[$f]=$(sha_of "$f")
  done
  i=0
  for f in "${C_LINES[@]}"; do
    i=$((i + 1))
    [[ -f $f ]] && cp "$f" ".lines.$i"
  done
  for f in "${C_PFX[@]}"; do
    i=$((i + 1))
    # The complete lines of a file that --resume may extend (a last line
    # without its newline is the cut line the tool drops).
    if [[ -f $f ]]; then
      python3 - "$f" ".prefix.$i" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
cut = data.rfind(b'\n') + 1
open(sys.argv[2], 'wb').write(data[:cut])
EOF
    fi
  done
  local bin="$BIN_DIR/$C_TOOL" rc t0 t1
  t0=$(date +%s%N)
  if [[ -n $C_STDIN ]]; then
    bash -c "$C_STDIN" 2>/dev/null |
      ( if [[ -n $MEM_KB ]]; then ulimit -v "$MEM_KB"; fi
        exec timeout -k 5 "$CASE_TIMEOUT" "$bin" "${C_CMD[@]}" ) > stdout 2> stderr
    rc=${PIPESTATUS[1]}
  else
    ( if [[ -n $MEM_KB ]]; then ulimit -v "$MEM_KB"; fi
      exec timeout -k 5 "$CASE_TIMEOUT" "$bin" "${C_CMD[@]}" ) < /dev/null > stdout 2> stderr
    rc=$?
  fi
  t1=$(date +%s%N)
  local elapsed_ms=$(( (t1 - t0) / 1000000 ))
  local -a v=()
  local hang=0
  if (( rc == 126 || rc == 127 )); then
    # The tool could not be started (replaced by a rebuild meanwhile?): no
    # verdict on the tool.
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$C_TOOL" "$C_CAT" "$C_EXPECT" \
      "$rc" "$elapsed_ms" "EXEC" "$(show_cmd "$C_TOOL" "${C_CMD[@]}")" \
      "could not be started: $(head -c 200 stderr)" > result
    return 0
  fi
  if (( rc == 124 )) || { (( rc == 137 )) && (( elapsed_ms >= CASE_TIMEOUT * 1000 )); }; then
    hang=1
    v+=(HANG)
  elif (( rc >= 128 )) || grep -aqE "$crash_pattern" stderr stdout; then
    v+=(CRASH)
  fi
  local loss=""
  for f in "${C_RO[@]}"; do
    [[ $(sha_of "$f") == "${before[$f]}" ]] || loss+=" $f changed (read-only input)"
  done
  if (( rc != 0 )); then
    for f in "${C_REF[@]}" "${C_PFX[@]}" "${C_LINES[@]}"; do
      [[ $(sha_of "$f") == "${before[$f]}" ]] || loss+=" $f changed by a refused run"
    done
  else
    i=0
    for f in "${C_PFX[@]}"; do
      i=$((i + 1))
      if [[ -f .prefix.$i ]] && ! { [[ -f $f ]] && cmp -s -n "$(stat -c %s ".prefix.$i")" ".prefix.$i" "$f"; }; then
        loss+=" $f lost some of its complete lines"
      fi
    done
    i=0
    for f in "${C_LINES[@]}"; do
      i=$((i + 1))
      # Every distinct complete line of the input is still there.
      if [[ -f .lines.$i ]] && ! python3 - ".lines.$i" "$f" <<'EOF'
import sys
def complete(p):
    try:
        data = open(p, 'rb').read()
    except OSError:
        return set()
    return set(data[: data.rfind(b'\n') + 1].splitlines())
sys.exit(0 if complete(sys.argv[1]) <= complete(sys.argv[2]) else 1)
EOF
      then
        loss+=" $f lost one of its distinct lines"
      fi
    done
  fi
  [[ -z $loss ]] || v+=(LOSS)
  local codes=$C_CODES
  if [[ -z $codes ]]; then
    case $C_EXPECT in
      refuse) codes=2 ;;
      ok) codes=0 ;;
      ran) codes="0 3" ;;
      any-nonzero) codes=nonzero ;;
      any) codes='*' ;;
    esac
  fi
  local status_ok=0
  if [[ $codes == '*' ]]; then status_ok=1
  elif [[ $codes == nonzero ]]; then (( rc != 0 )) && status_ok=1
  elif [[ " $codes " == *" $rc "* ]]; then status_ok=1
  fi
  if (( status_ok == 0 )) && (( hang == 0 )) && (( rc < 128 )); then
    if (( rc == 0 )); then v+=(FALSE) ; else v+=(STATUS); fi
  fi
  # The message of a refusal.
  if (( hang == 0 )) && (( rc < 128 )) && { (( rc == 2 || rc == 4 )) ||
       { (( rc != 0 )) && [[ $C_EXPECT == refuse || $C_EXPECT == any-nonzero ]]; }; }; then
    local size
    size=$(stat -c %s stderr)
    if (( size == 0 )); then
      v+=(MSG); C_NOTE+=" stderr empty"
    elif (( size > 4096 )); then
      v+=(MSG); C_NOTE+=" stderr ${size} bytes"
    elif [[ -n $C_FRAG ]] && ! grep -aqF -- "$C_FRAG" stderr; then
      v+=(MSG); C_NOTE+=" stderr lacks '$C_FRAG'"
    fi
  fi
  local verdict=pass
  (( ${#v[@]} == 0 )) || verdict=$(IFS=,; echo "${v[*]}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$C_TOOL" "$C_CAT" "$C_EXPECT" \
    "$rc" "$elapsed_ms" "$verdict" "$(show_cmd "$C_TOOL" "${C_CMD[@]}")" \
    "${C_NOTE}${loss}" > result
  # A passing case keeps only its description, verdict and stderr (a kept
  # workspace stays small).
  if [[ $verdict == pass ]]; then
    chmod -R u+rwx . 2> /dev/null
    find . -mindepth 1 -maxdepth 1 ! -name case.sh ! -name result ! -name stderr \
      -exec rm -rf {} + 2> /dev/null
    [[ $(stat -c %s stderr) -le 65536 ]] || : > stderr
  fi
  return 0
}

if [[ ${1:-} == --run-case ]]; then
  run_case "$2"
  exit 0
fi

# ---------------------------------------------------------------------------
# Arguments, tools, workspace.
# ---------------------------------------------------------------------------
QUICK=0 JOBS=2 SEED=60 KEEP=0 ALLOW_KNOWN=0 BUILD=build
for arg in "$@"; do
  case $arg in
    --quick) QUICK=1 ;;
    --jobs=*) JOBS=${arg#--jobs=} ;;
    --seed=*) SEED=${arg#--seed=} ;;
    --keep) KEEP=1 ;;
    --allow-known) ALLOW_KNOWN=1 ;;
    -h|--help) sed -n '2,51p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "hostile_battery.sh: unknown option $arg" >&2; exit 2 ;;
    *) BUILD=$arg ;;
  esac
done
if [[ -x $BUILD/examples/ecmo_solve ]]; then BIN_DIR=$(readlink -f "$BUILD/examples")
elif [[ -x $BUILD/ecmo_solve ]]; then BIN_DIR=$(readlink -f "$BUILD")
else
  echo "hostile_battery.sh: no ecmo_solve in $BUILD/examples or $BUILD" >&2
  exit 2
fi
for tool in ecmo_solve ecmo_plot ecmo_mtbl; do
  if [[ ! -x $BIN_DIR/$tool ]]; then
    echo "hostile_battery.sh: $BIN_DIR/$tool is missing" >&2
    exit 2
  fi
done
for need in python3 timeout sha256sum gzip cmp; do
  command -v "$need" > /dev/null || { echo "hostile_battery.sh: needs $need" >&2; exit 2; }
done
SOLVE=$BIN_DIR/ecmo_solve PLOT=$BIN_DIR/ecmo_plot MTBL=$BIN_DIR/ecmo_mtbl
# The tools' fingerprint: a rebuild during the run would mix two builds.
tools_fingerprint() { cat "$SOLVE" "$PLOT" "$MTBL" | sha256sum | cut -d' ' -f1; }
FINGERPRINT=$(tools_fingerprint)
SANITIZED=0
if grep -aqE '__asan_init|__tsan_init|__msan_init' "$SOLVE"; then SANITIZED=1; fi
if (( SANITIZED )); then MEM_KB="" CASE_TIMEOUT=180; else MEM_KB=8388608 CASE_TIMEOUT=60; fi
RANDOM=$SEED
W=$(mktemp -d "${TMPDIR:-/tmp}/hostile_battery.XXXXXX")
FIX=$W/fixtures
mkdir -p "$FIX" "$W/cases" "$W/series"
export BIN_DIR MEM_KB CASE_TIMEOUT
START_TIME=$(date +%s)
SKIPPED=()
echo "hostile battery: tools in $BIN_DIR, workspace $W$( ((QUICK)) && echo ', quick subset')"
(( SANITIZED )) && echo "hostile battery: sanitizer build: no memory limit, ${CASE_TIMEOUT} s per case"

# ---------------------------------------------------------------------------
# Fixtures: real results of the tools, and hostile files.
# ---------------------------------------------------------------------------
fixture_fail() { echo "hostile battery: fixture failed: $*" >&2; exit 1; }
(
  cd "$FIX"
  "$SOLVE" --problem=gebken_circle --sweep=5 --jsonl=sweep.jsonl \
    --csv=sweep.csv --output=sweep.json > /dev/null 2> sweep.err ||
    fixture_fail "ecmo_solve sweep (see $FIX/sweep.err)"
  set +e
  "$SOLVE" --problem=gebken_circle --sweep=3 --max_iterations=2 \
    --jsonl=noconv.jsonl > /dev/null 2> noconv.err
  [[ $? == 3 ]] || fixture_fail "ecmo_solve --max_iterations=2 should exit 3"
  set -e
  "$MTBL" --smoke --task=mtbl_logistic --output_dir=mtbl > /dev/null 2> mtbl.err ||
    fixture_fail "ecmo_mtbl --smoke (see $FIX/mtbl.err)"
) || exit 1

python3 - "$FIX" "$SRC_DIR" <<'EOF'
import gzip, json, os, random, sys
fix, src = sys.argv[1], sys.argv[2]
def w(name, data):
    with open(os.path.join(fix, name), 'wb') as f:
        f.write(data)
rng = random.Random(60)
first = open(os.path.join(fix, 'sweep.jsonl'), 'rb').read().split(b'\n')[0]
deep = b'[' * 60000 + b']' * 60000
w('empty', b'')
w('binary', bytes(rng.randrange(256) for _ in range(65536)))
w('deep.jsonl', deep + b'\n')
w('deep_index.jsonl', b'{"index":' + deep + b'}\n')
w('deep_field.jsonl', first[:-1] + b',"extra":' + deep + b'}\n')
w('deep_object.jsonl', b'{"a":' * 60000 + b'1' + b'}' * 60000 + b'\n')
w('string_1mb.jsonl', b'{"problem":"' + b'x' * (1 << 20) + b'"}\n')
w('index_10mb.jsonl', b'{"index":"' + b'7' * (10 << 20) + b'"}\n')
w('nonjson_no_newline', b'this is not JSON, and has no final newline')
w('nul_byte.jsonl', first[:40] + b'\x00' + first[40:] + b'\n')
w('bad_utf8.jsonl', b'{"problem":"gebken\xff\xfe_circle"}\n')
w('json_array.jsonl', b'[1, 2, 3]\n')
w('long_line_no_json', b'x' * (3 << 20))
w('crlf.jsonl', open(os.path.join(fix, 'sweep.jsonl'), 'rb').read().replace(b'\n', b'\r\n'))
digits = open(os.path.join(src, 'data', 'digits.csv.gz'), 'rb').read()
w('digits_truncated.csv.gz', digits[: len(digits) // 2])
w('garbage.csv.gz', gzip.compress(bytes(rng.randrange(256) for _ in range(65536))))
w('text.csv.gz', gzip.compress(b'a,b,c\n1,2\nx,y,z\n' * 1000))
w('digits_plain.csv', gzip.decompress(digits))
EOF
# 100 MB of zeros, gzipped (~100 kB): the decompressed-size limit.
head -c 100M /dev/zero | gzip -1 > "$FIX/gzip_bomb.csv.gz"
# A file above the readers' 1 GiB limit (sparse: no disk used), one JSON
# line first.
{ head -1 "$FIX/sweep.jsonl"; } > "$FIX/huge_sparse.jsonl"
truncate -s 1100M "$FIX/huge_sparse.jsonl"
mkdir -p "$FIX/a_directory"

# Hostile input files: name -> path (absolute; "missing" does not exist).
declare -A HOSTILE=(
  [missing]="$FIX/no_such_file"
  [directory]="$FIX/a_directory"
  [dev_zero]=/dev/zero
  [dev_null]=/dev/null
  [empty]="$FIX/empty"
  [binary]="$FIX/binary"
  [deep_60000]="$FIX/deep.jsonl"
  [deep_index]="$FIX/deep_index.jsonl"
  [deep_field]="$FIX/deep_field.jsonl"
  [deep_object]="$FIX/deep_object.jsonl"
  [string_1mb]="$FIX/string_1mb.jsonl"
  [index_10mb]="$FIX/index_10mb.jsonl"
  [nonjson_no_newline]="$FIX/nonjson_no_newline"
  [nul_byte]="$FIX/nul_byte.jsonl"
  [bad_utf8]="$FIX/bad_utf8.jsonl"
  [json_array]="$FIX/json_array.jsonl"
  [long_line_3mb]="$FIX/long_line_no_json"
  [huge_sparse_1100mb]="$FIX/huge_sparse.jsonl"
)
HOSTILE_NAMES=(missing directory dev_zero dev_null empty binary deep_60000
  deep_index deep_field deep_object string_1mb index_10mb nonjson_no_newline
  nul_byte bad_utf8 json_array long_line_3mb huge_sparse_1100mb)

# Puts hostile file $2 at path $1 of a case directory (a copy, so that a
# change shows; devices, the directory and the huge sparse file as links).
place() {
  local to=$1 name=$2 from=${HOSTILE[$2]}
  case $name in
    missing) echo ": no $to" ;;
    directory) echo "mkdir -p $(printf '%q' "$to")" ;;
    dev_zero|dev_null|huge_sparse_1100mb) echo "ln -s $(printf '%q' "$from") $(printf '%q' "$to")" ;;
    *) echo "cp $(printf '%q' "$from") $(printf '%q' "$to")" ;;
  esac
}
# Whether `place` makes a regular file whose bytes the battery can compare.
is_copied() { case $1 in missing|directory|dev_zero|dev_null|huge_sparse_1100mb) return 1 ;; esac; return 0; }

# ---------------------------------------------------------------------------
# Case generation.
# ---------------------------------------------------------------------------
NCASE=0
c_new() {  # TOOL CATEGORY EXPECT [FRAGMENT]
  C_TOOL=$1 C_CAT=$2 C_EXPECT=$3 C_FRAG=${4:-} C_SETUP="" C_STDIN="" C_NOTE=""
  C_CODES="" C_RO=() C_REF=() C_PFX=() C_LINES=() C_QUICK=0
}
c_emit() {  # ARGS... (the tool's arguments)
  if (( QUICK && ! C_QUICK )); then return 0; fi
  NCASE=$((NCASE + 1))
  local d
  d=$(printf '%s/cases/%05d' "$W" "$NCASE")
  mkdir -p "$d"
  {
    declare -p C_TOOL C_CAT C_EXPECT C_FRAG C_SETUP C_STDIN C_NOTE C_CODES
    printf 'C_RO=('; (( ${#C_RO[@]} )) && printf '%q ' "${C_RO[@]}"; printf ')\n'
    printf 'C_REF=('; (( ${#C_REF[@]} )) && printf '%q ' "${C_REF[@]}"; printf ')\n'
    printf 'C_PFX=('; (( ${#C_PFX[@]} )) && printf '%q ' "${C_PFX[@]}"; printf ')\n'
    printf 'C_LINES=('; (( ${#C_LINES[@]} )) && printf '%q ' "${C_LINES[@]}"; printf ')\n'
    printf 'C_CMD=('; printf '%q ' "$@"; printf ')\n'
  } > "$d/case.sh"
}
skip() { SKIPPED+=("$*"); }

LONG_DIGITS=$(head -c 102400 /dev/zero | tr '\0' '1')   # a 100 kB number
LONG_TEXT=$(head -c 102400 /dev/zero | tr '\0' 'x')     # a 100 kB string
NUM_VALUES=("" nan inf -inf -1 0 1 1e400 1e-400 2147483647 2147483648 -2147483649 LONG abc 1.5)
BOOL_VALUES=("" abc 2 -1 nan LONG)
STR_VALUES=("" abc nan LONG)
value_of() { [[ $1 == LONG ]] && { [[ $2 == str ]] && echo "$LONG_TEXT" || echo "$LONG_DIGITS"; } || echo "$1"; }

# The flags of a tool and their types, from its --help.
flags_of() {
  "$1" --help 2>&1 | awk '
    /^    -[a-z0-9_]+ \(/ { if (name != "") print name, type; name = substr($1, 2); type = "" }
    { if (match($0, /type: [a-z0-9]+/)) type = substr($0, RSTART + 6, RLENGTH - 6) }
    END { if (name != "") print name, type }'
}

# Expectation of flag value $3 for tool $1, flag $2 of type $4: prints
# "CLASS" (refuse, ok, ran, any, skip:REASON). Unparseable values are
# refused by the shared flag parser (examples/tool_flags.h); the others
# follow each flag's documented range (README.md, the tools' --help).
expect_of() {
  local tool=$1 flag=$2 value=$3 type=$4
  case $type in
    int32)
      case $value in ""|nan|inf|-inf|1e400|1e-400|2147483648|-2147483649|LONG|abc|1.5) echo refuse; return ;; esac ;;
    double)  # gflags refuses what strtod over- or underflows (ERANGE)
      case $value in ""|1e400|1e-400|LONG|abc|nan) echo refuse; return ;; esac ;;
    bool) echo refuse; return ;;
  esac
  local key="$tool:$flag:$value"
  case $key in
    # ---- ecmo_solve (README "Command-line reference"; --help).
    ecmo_solve:problem_size:0) echo ran ;;
    ecmo_solve:problem_size:*) echo refuse ;;          # a multiple of 10, >= 10, <= 1e6
    ecmo_solve:sweep:1) echo ran ;;
    ecmo_solve:sweep:*) echo refuse ;;                 # >= 1, <= 1e6
    ecmo_solve:preference_floor:*) echo refuse ;;      # in (0, 1/S)
    ecmo_solve:num_threads:1) echo ran ;;
    ecmo_solve:num_threads:2147483647) echo any ;;     # falls back to the threads it gets
    ecmo_solve:num_threads:*) echo refuse ;;
    ecmo_solve:progress_every_n_seconds:-inf|ecmo_solve:progress_every_n_seconds:-1|ecmo_solve:progress_every_n_seconds:-2147483649) echo refuse ;;
    ecmo_solve:progress_every_n_seconds:*) echo any ;;
    ecmo_solve:history_stride:-1|ecmo_solve:history_entries:-1) echo refuse ;;
    ecmo_solve:history_stride:*|ecmo_solve:history_entries:*) echo ran ;;
    ecmo_solve:max_iterations:-1|ecmo_solve:max_iterations:0) echo refuse ;;
    ecmo_solve:max_iterations:*) echo ran ;;
    ecmo_solve:kkt_tolerance:0) echo ran ;;
    ecmo_solve:kkt_tolerance:*) echo refuse ;;         # in [0, 1e-4]
    ecmo_solve:stationarity_tolerance:*|ecmo_solve:complementarity_tolerance:*|ecmo_solve:feasibility_tolerance:*)
      case $value in inf|-inf|-1|-2147483649) echo refuse ;; *) echo any ;; esac ;;
    ecmo_solve:model_tolerance:*) echo refuse ;;       # in (0, 1e-4]
    ecmo_solve:stationarity_floor:*)                   # finite, >= 0
      case $value in inf|-inf|-1|-2147483649) echo refuse ;; *) echo ran ;; esac ;;
    ecmo_solve:max_saddle_escapes:-1) echo refuse ;;   # >= 0
    ecmo_solve:max_saddle_escapes:*) echo ran ;;
    ecmo_solve:utopia_margin:*)
      case $value in inf|-inf|-1|-2147483649) echo refuse ;; *) echo any ;; esac ;;
    ecmo_solve:refine:0|ecmo_solve:refine:-1) echo ran ;;  # README: -1 (the default) "where needed", 0 off
    ecmo_solve:refine:1) echo any ;;
    ecmo_solve:refine:*) echo refuse ;;                # -1, or in [0, 1e6]
    ecmo_solve:eta0:*|ecmo_solve:c0:*|ecmo_solve:reference_tolerance:*)
      case $value in inf|-inf|-1|-2147483649) echo refuse ;; *) echo any ;; esac ;;
    # ---- ecmo_plot.
    ecmo_plot:width:*|ecmo_plot:height:*) echo refuse ;;   # --width=10 is refused; 2^31 pixels too
    # ---- ecmo_mtbl (CheckIntegerFlags / CheckDoubleFlags, --help).
    ecmo_mtbl:seeds:1) echo ok ;;
    ecmo_mtbl:seeds:*) echo refuse ;;                  # [1, 1000]
    ecmo_mtbl:first_seed:-1) echo refuse ;;
    ecmo_mtbl:first_seed:*) echo ok ;;                 # [0, 2^31 - seeds]
    ecmo_mtbl:baseline_iterations:2147483647) echo "skip:a valid budget of 2^31 iterations just runs" ;;
    ecmo_mtbl:baseline_iterations:-1|ecmo_mtbl:inner_iterations:-1) echo refuse ;;
    ecmo_mtbl:baseline_iterations:*|ecmo_mtbl:inner_iterations:*) echo ok ;;
    ecmo_mtbl:num_threads:1) echo ok ;;
    ecmo_mtbl:num_threads:*) echo refuse ;;            # [1, 256]
    ecmo_mtbl:kkt_tolerance:-1|ecmo_mtbl:kkt_tolerance:0) echo ok ;;
    ecmo_mtbl:kkt_tolerance:*) echo refuse ;;
    ecmo_mtbl:l2:*|ecmo_mtbl:proximal:*)               # >= 0 and finite, or -1
      case $value in inf|-inf|-2147483649) echo refuse ;; 2147483648) echo any ;; *) echo ok ;; esac ;;
    ecmo_mtbl:upper_step_size:*)                       # >= 0 and finite
      case $value in inf|-inf|-1|-2147483649) echo refuse ;; 2147483648) echo any ;; *) echo ok ;; esac ;;
    ecmo_mtbl:max_seconds_per_point:*)                 # > 0 and finite, or -1
      case $value in inf|-inf|0|-2147483649) echo refuse ;; *) echo ok ;; esac ;;
    *) echo any ;;
  esac
}

# Base arguments that make flag $2 of tool $1 matter (and keep runs short).
base_args() {
  local tool=$1 flag=$2
  case $tool:$flag in
    ecmo_solve:problem_size) echo "--problem=mtbl_logistic_reduced --preference=0.3,0.3,0.4" ;;
    ecmo_solve:sweep) echo "--problem=gebken_circle" ;;
    ecmo_solve:preference_floor|ecmo_solve:num_threads|ecmo_solve:progress_every_n_seconds|ecmo_solve:refine|ecmo_solve:hypervolume_reference|ecmo_solve:warm_start|ecmo_solve:jsonl|ecmo_solve:resume|ecmo_solve:csv)
      echo "--problem=gebken_circle --sweep=3" ;;
    ecmo_solve:eta0|ecmo_solve:c0|ecmo_solve:step_rule) echo "--problem=gebken_circle --preference=0.3,0.7 --strategy=wc-penalty-pgd --max_iterations=200" ;;
    ecmo_solve:newton_hessian|ecmo_solve:newton_linear_solver) echo "--problem=gebken_circle --preference=0.3,0.7 --strategy=wc-newton" ;;
    ecmo_solve:sqp_hessian) echo "--problem=gebken_circle --preference=0.3,0.7 --strategy=wc-sqp" ;;
    ecmo_solve:reference_tolerance) echo "--problem=gebken_circle --preference=0.3,0.7 --reference=ipopt" ;;
    ecmo_solve:preference|ecmo_solve:preferences|ecmo_solve:problem) echo "" ;;
    ecmo_solve:*) echo "--problem=gebken_circle --preference=0.3,0.7" ;;
    ecmo_plot:input) echo "--output=out.png" ;;
    ecmo_plot:output) echo "--input=front.jsonl" ;;
    ecmo_plot:*) echo "--input=front.jsonl --output=out.png" ;;
    ecmo_mtbl:seeds) echo "--task=mtbl_logistic --method=soba-ls --preferences=equal --output_dir=out" ;;
    ecmo_mtbl:preferences) echo "--task=mtbl_logistic --method=soba-ls --seeds=1 --output_dir=out" ;;
    ecmo_mtbl:task) echo "--smoke --method=soba-ls --output_dir=out" ;;
    ecmo_mtbl:method) echo "--smoke --task=mtbl_logistic --output_dir=out" ;;
    ecmo_mtbl:data) echo "--smoke --method=soba-ls --output_dir=out" ;;
    ecmo_mtbl:smoke) echo "--task=mtbl_logistic --method=soba-ls --output_dir=out" ;;
    ecmo_mtbl:output_dir) echo "--smoke --task=mtbl_logistic --method=soba-ls" ;;
    ecmo_mtbl:kkt_tolerance|ecmo_mtbl:strategy|ecmo_mtbl:max_seconds_per_point) echo "--smoke --task=mtbl_logistic --method=wc-penalty --output_dir=out" ;;
    ecmo_mtbl:reduced_strategy|ecmo_mtbl:lower_preconditioner) echo "--smoke --task=mtbl_logistic --method=wc-reduced --output_dir=out" ;;
    ecmo_mtbl:*) echo "--smoke --task=mtbl_logistic --method=soba-ls --output_dir=out" ;;
  esac
}

# String flags: the expectation of value $3 (beyond "", abc, nan, LONG,
# which every string flag gets).
string_expect() {
  local tool=$1 flag=$2 value=$3
  case $tool:$flag:$value in
    ecmo_solve:problem:*|ecmo_solve:strategy:*|ecmo_solve:step_rule:*|ecmo_solve:newton_hessian:*|ecmo_solve:newton_linear_solver:*|ecmo_solve:sqp_hessian:*|ecmo_solve:normalize:*|ecmo_solve:reference:*) echo refuse ;;
    ecmo_solve:reference_point:) echo any ;;
    ecmo_solve:reference_point:*) echo refuse ;;
    ecmo_solve:problem_library:|ecmo_solve:preference:|ecmo_solve:preferences:|ecmo_solve:objective_offset:|ecmo_solve:hypervolume_reference:|ecmo_solve:plot:|ecmo_solve:output:|ecmo_solve:csv:|ecmo_solve:jsonl:) echo ran ;;
    ecmo_solve:problem_library:*|ecmo_solve:preference:*|ecmo_solve:preferences:*|ecmo_solve:objective_offset:*|ecmo_solve:hypervolume_reference:*|ecmo_solve:plot:*) echo refuse ;;
    ecmo_solve:output:LONG|ecmo_solve:csv:LONG|ecmo_solve:jsonl:LONG) echo refuse ;;  # a 100 kB file name
    ecmo_solve:output:*|ecmo_solve:csv:*|ecmo_solve:jsonl:*) echo ran ;;
    ecmo_plot:input:*) echo refuse ;;
    ecmo_plot:output:*) echo refuse ;;                 # FILE.png or FILE.svg
    ecmo_plot:problem:) echo ok ;;
    ecmo_plot:problem:*) echo refuse ;;
    ecmo_plot:title:LONG) echo any ;;
    ecmo_plot:title:*) echo ok ;;
    ecmo_mtbl:data:) echo ok ;;
    ecmo_mtbl:output_dir:LONG) echo refuse ;;
    ecmo_mtbl:output_dir:*) echo ok ;;
    ecmo_mtbl:preferences:) echo any ;;
    ecmo_mtbl:*) echo refuse ;;
    *) echo any ;;
  esac
}

gen_flag_cases() {
  local tool=$1 bin=$2 name type value class args frag setup quick_value
  local -a base
  while read -r name type; do
    [[ -n $name ]] || continue
    case $name in help*|version|list_problems) continue ;; esac
    read -r -a base <<< "$(base_args "$tool" "$name")"
    setup=""
    [[ $tool == ecmo_plot ]] && setup="cp $(printf '%q' "$FIX/sweep.jsonl") front.jsonl"
    local -a values
    case $type in
      int32|double) values=("${NUM_VALUES[@]}") ;;
      bool) values=("${BOOL_VALUES[@]}") ;;
      *) values=("${STR_VALUES[@]}") ;;
    esac
    case $type in int32|double) quick_value=nan ;; bool) quick_value=abc ;; *) quick_value=LONG ;; esac
    for value in "${values[@]}"; do
      if [[ $type == string ]]; then class=$(string_expect "$tool" "$name" "$value")
      else class=$(expect_of "$tool" "$name" "$value" "$type")
      fi
      if [[ $class == skip:* ]]; then
        skip "$tool --$name=$value: ${class#skip:}"
        continue
      fi
      # The message names the flag or the option it sets
      # ("Solver::Options::utopia_margin = nan").
      frag="$name"
      # tests/README.md: "IpoptReference::Options::tolerance = -1".
      # (a value gflags cannot parse: "flag --reference_tolerance").
      [[ $name == reference_tolerance ]] && frag="tolerance"
      # A refused name, path or list need not repeat the flag's name.
      [[ $type == string ]] && frag=""
      c_new "$tool" flags "$class" "$frag"
      C_SETUP=$setup
      [[ $tool == ecmo_plot ]] && C_RO=(front.jsonl)
      [[ $value == "$quick_value" ]] && C_QUICK=1
      [[ $tool:$name == ecmo_solve:problem_size && $value == 0 ]] && C_NOTE="default size: a 10 s solve"
      local typ=num
      [[ $type == string || $type == bool ]] && typ=str
      c_emit "${base[@]}" "--$name=$(value_of "$value" "$typ")"
    done
  done < <(flags_of "$bin")
}

# ---- Every flag of every tool, given hostile values.
gen_flag_cases ecmo_solve "$SOLVE"
gen_flag_cases ecmo_plot "$PLOT"
gen_flag_cases ecmo_mtbl "$MTBL"

# ---- Unknown flags, bad spellings, stray arguments, gflags' own flags.
for tool in ecmo_solve ecmo_plot ecmo_mtbl; do
  for a in --no_such_flag=1 --no_such_flag -x --=3 ---sweep=3 --Json extra \
           "--$LONG_TEXT=1" --nojson=true --flagfile=/dev/zero \
           --flagfile="$FIX/binary" --flagfile="$FIX/no_such_file" \
           --flagfile="$FIX/deep.jsonl" --fromenv=no_such_flag; do
    c_new "$tool" unknown-flags any-nonzero
    base=()
    [[ $tool == ecmo_mtbl ]] && base=(--smoke --task=mtbl_logistic --method=soba-ls)
    case $a in
      # gflags reads a flagfile's lines that do not start with '-' as
      # program-name patterns and ignores them: a binary or JSON file holds
      # no flag and the tool runs with its defaults.
      --flagfile="$FIX/binary"|--flagfile="$FIX/deep.jsonl") C_EXPECT=any ;;
      --no_such_flag*) C_FRAG=no_such_flag; C_EXPECT=refuse; C_QUICK=1 ;;
      extra) C_FRAG="'extra'"; C_EXPECT=refuse ;;
      --Json|-x|---sweep=3|--nojson=true) C_EXPECT=refuse ;;
      "--$LONG_TEXT=1") C_EXPECT=refuse; C_QUICK=1 ;;
    esac
    c_emit "${base[@]}" "$a"
  done
  # A flag without its value at the end.
  c_new "$tool" unknown-flags refuse "needs a value"
  case $tool in
    ecmo_solve) c_emit --sweep ;;
    ecmo_plot) c_emit --input=x.jsonl --width ;;
    ecmo_mtbl) c_emit --seeds ;;
  esac
done

# ---- Unknown problem / task names.
for name in nope "" GEBKEN_CIRCLE "gebken_circle " ../gebken_circle \
            "gebken_circle;ls" $'gebken\ncircle' "gebken_circle,convex_line" \
            "$LONG_TEXT" $'\xff\xfe' digits_data_weighting/../x; do
  c_new ecmo_solve problem-names refuse "unknown problem"
  [[ ${#name} -gt 1000 ]] && { C_FRAG="(102400 characters)"; C_QUICK=1; }
  [[ -z $name ]] && C_FRAG=""
  c_emit "--problem=$name" --preference=0.3,0.7
  c_new ecmo_plot problem-names refuse
  C_SETUP="cp $(printf '%q' "$FIX/sweep.jsonl") front.jsonl"; C_RO=(front.jsonl)
  [[ -z $name ]] && C_EXPECT=ok    # empty: the problem named in the file
  c_emit --input=front.jsonl --output=out.png "--problem=$name"
  c_new ecmo_mtbl problem-names refuse "unknown --task"
  c_emit "--task=$name" --smoke --method=soba-ls
done
for m in nope "" "wc-penalty,nope" "soba-ls,soba-ls" "," "all,moml" "$LONG_TEXT"; do
  c_new ecmo_mtbl problem-names refuse
  [[ $m == soba-ls,soba-ls ]] && C_EXPECT=any
  [[ $m == all,moml ]] && C_EXPECT=any
  c_emit --smoke --task=mtbl_logistic "--method=$m" --output_dir=out
done

# ---- --preference / --preferences strings.
for p in 0.7,0.7 0.5 0.2,0.3,0.5 -0.5,1.5 nan,0.5 nan,nan 0.3,0.7x "0.3,0.7," \
         ,0.3,0.7 0.3,,0.7 inf,0 0,1 1,0 1e400,0 0.3\;0.7 " 0.3,0.7" 0.3,0.7\ \
         1e-300,1 0x1p-2,0x1.8p-1 "$(printf '0.1,%.0s' {1..5000})0.1" \
         0.5,0.5,abc 0.30000000000000004,0.7 "$LONG_DIGITS"; do
  c_new ecmo_solve preferences refuse
  case $p in
    0.3,0.7x|0.5|0.7,0.7) C_QUICK=1 ;;
    " 0.3,0.7"|"0.3,0.7 "|0x1p-2,0x1.8p-1|0.30000000000000004,0.7) C_EXPECT=any ;;
    1e-300,1) C_EXPECT=any ;;   # sums to 1 within rounding, inside the open simplex
  esac
  c_emit --problem=gebken_circle "--preference=$p"
done
for p in nope:3 das-dennis:x das-dennis:-1 das-dennis:0 das-dennis:2147483647 \
         das-dennis:2147483648 das-dennis:1e400 das-dennis:3:extra random:0 \
         random:-1 random:2147483647 random:3:abc random:3:-1 random:3:99999999999999999999 \
         even:-1 even:0 even:1 even:2147483648 file: paper: "das-dennis:" \
         "random:" ":" "das-dennis:$LONG_DIGITS" "file:$FIX/no_such_file"; do
  c_new ecmo_solve preferences refuse "--preferences"
  case $p in
    nope:3|das-dennis:2147483647) C_QUICK=1 ;;
    das-dennis:0|even:1|random:3:-1|paper:) C_EXPECT=any ;;
  esac
  c_emit --problem=gebken_circle "--preferences=$p"
done
for name in "${HOSTILE_NAMES[@]}"; do
  c_new ecmo_solve preferences refuse
  C_SETUP=$(place prefs.txt "$name")
  is_copied "$name" && C_RO=(prefs.txt)
  [[ $name == deep_60000 ]] && C_QUICK=1
  c_emit --problem=gebken_circle --preferences=file:prefs.txt
done
for p in 0.5 0.7,0.7,0.7 nan,nan,nan -1,1,1 grid:-1 grid:0 grid:2147483647 grid:x \
         "random:2147483647" "0.2,0.2,0.2,0.2,0.2"; do
  c_new ecmo_mtbl preferences refuse "--preferences"
  [[ $p == grid:2147483647 ]] && C_QUICK=1
  [[ $p == grid:0 ]] && C_EXPECT=any
  c_emit --task=mtbl_logistic --method=soba-ls --seeds=1 "--preferences=$p" --output_dir=out
done

# ---- Hostile files as inputs.
RESUME_ARGS=(--problem=gebken_circle --sweep=5 --jsonl=front.jsonl --resume)
for name in "${HOSTILE_NAMES[@]}"; do
  # ecmo_solve --resume on it.
  c_new ecmo_solve files-in refuse
  case $name in
    missing) C_EXPECT=ok ;;                   # nothing to resume: a fresh sweep
    empty) C_EXPECT=ok ;;                     # no point yet
    index_10mb) C_FRAG="characters)" ;;
    deep_*) C_FRAG="nested deeper than" ;;
    huge_sparse_1100mb) C_FRAG="limit of 1024 MiB" ;;
    dev_zero) C_FRAG="not a regular file" ;;
  esac
  [[ $name == deep_index || $name == index_10mb || $name == dev_zero || $name == huge_sparse_1100mb ]] && C_QUICK=1
  C_SETUP=$(place front.jsonl "$name")
  is_copied "$name" && C_PFX=(front.jsonl)
  c_emit "${RESUME_ARGS[@]}"
  # ecmo_plot --input.
  c_new ecmo_plot files-in refuse
  C_SETUP=$(place in.jsonl "$name")
  is_copied "$name" && C_RO=(in.jsonl)
  case $name in deep_*) C_FRAG="nested deeper than" ;; dev_zero) C_FRAG="64 MiB" ;; esac
  [[ $name == deep_60000 || $name == dev_zero || $name == string_1mb ]] && C_QUICK=1
  c_emit --input=in.jsonl --output=out.png
  # ecmo_mtbl --data.
  c_new ecmo_mtbl files-in refuse
  C_SETUP=$(place data.csv.gz "$name")
  is_copied "$name" && C_RO=(data.csv.gz)
  [[ $name == dev_zero || $name == directory ]] && C_QUICK=1
  c_emit --smoke --method=soba-ls --data=data.csv.gz --output_dir=out
  # ecmo_mtbl --resume on it as points.jsonl.
  c_new ecmo_mtbl files-in refuse
  C_SETUP="mkdir -p out && $(place out/points.jsonl "$name")"
  is_copied "$name" && C_PFX=(out/points.jsonl)
  case $name in missing) C_EXPECT=ok ;; empty) C_EXPECT=any ;; esac
  [[ $name == deep_field || $name == dev_zero ]] && C_QUICK=1
  c_emit --smoke --task=mtbl_logistic --method=soba-ls --output_dir=out --resume
  # ecmo_solve --problem_library.
  c_new ecmo_solve files-in refuse
  C_SETUP=$(place lib.so "$name")
  is_copied "$name" && C_RO=(lib.so)
  [[ $name == binary ]] && C_QUICK=1
  c_emit --problem_library=./lib.so --list_problems
done
# Data files that gzip or the CSV reader must refuse.
for f in gzip_bomb.csv.gz digits_truncated.csv.gz garbage.csv.gz text.csv.gz digits_plain.csv; do
  c_new ecmo_mtbl files-in refuse
  [[ $f == digits_plain.csv ]] && C_EXPECT=any   # an uncompressed copy of the real data
  [[ $f == gzip_bomb.csv.gz ]] && C_QUICK=1
  C_SETUP="cp $(printf '%q' "$FIX/$f") data.csv.gz"; C_RO=(data.csv.gz)
  c_emit --smoke --method=soba-ls --data=data.csv.gz --output_dir=out
done
# Endless input from a pipe.
c_new ecmo_plot files-in refuse "64 MiB"; C_STDIN="yes '{\"a\":1}'"; C_QUICK=1
c_emit --input=/dev/stdin --output=out.png
c_new ecmo_solve files-in refuse; C_STDIN="yes '0.5,0.5'"
c_emit --problem=gebken_circle --preferences=file:/dev/stdin
c_new ecmo_mtbl files-in refuse; C_STDIN="yes"
c_emit --smoke --method=soba-ls --data=/dev/stdin --output_dir=out
c_new ecmo_mtbl files-in refuse; C_STDIN="head -c 200M /dev/zero | gzip -1"
c_emit --smoke --method=soba-ls --data=/dev/stdin --output_dir=out

# ---- ecmo_solve --resume on edited copies of a real sweep's file.
python3 - "$FIX" <<'EOF'
import json, os, sys
fix = sys.argv[1]
raw = open(os.path.join(fix, 'sweep.jsonl'), 'rb').read().decode()
lines = [json.loads(l) for l in raw.splitlines()]
nc = [json.loads(l) for l in open(os.path.join(fix, 'noconv.jsonl')).read().splitlines()]
def dump(objs):
    return ''.join(json.dumps(o, separators=(',', ':'), ensure_ascii=False) + '\n' for o in objs)
edits = {}
def edit(name, f, base=None):
    objs = json.loads(json.dumps(base if base is not None else lines))
    out = f(objs)
    edits[name] = out if isinstance(out, str) else dump(objs)
def set1(path, value, line=0):
    def f(objs):
        o = objs[line]
        keys = path.split('.')
        for k in keys[:-1]:
            o = o[k]
        if value is KeyError:
            del o[keys[-1]]
        else:
            o[keys[-1]] = value
    return f
RAW = '__RAW__'
for v, tag in [(99, '99'), (-1, 'neg'), (1.5, 'frac'), ('1', 'string'), (1e300, '1e300'),
               (18446744073709551616, '2pow64'), (None, 'null'), ([1], 'array'), ({}, 'object')]:
    edit('index_' + tag, set1('index', v))
edit('index_dup', set1('index', lines[1]['index']))
edit('z_null', set1('z', [None, None]))
edit('z_three', set1('z', [0.5, 0.5, 0.5]))
edit('z_moved', set1('z', [3.0, -3.0]))
edit('objectives_null', set1('objectives', [None, None]))
edit('objectives_zero', set1('objectives', [0.0, 0.0]))
edit('objectives_string', set1('objectives', 'abc'))
edit('preference_other', set1('preference', [0.6, 0.4]))
edit('preference_given_other', set1('preference_given', [0.6, 0.4]))
edit('problem_other', set1('problem', 'convex_line'))
edit('settings_max_iterations', set1('settings.max_iterations', 200))
edit('settings_missing', set1('settings', KeyError))
edit('settings_string', set1('settings', 'x'))
edit('warm_start_from_1000000', set1('warm_start_from', 1000000))
edit('warm_start_from_neg', set1('warm_start_from', -2))
edit('iterations_1e300', set1('iterations', 1e300))
edit('rho_string', set1('rho', 'abc'))
edit('kkt_null', set1('kkt', None))
edit('termination_other', set1('termination', 'NOT_A_TERMINATION'))
edit('certified_string', set1('certified', 'yes'))
edit('unknown_field', set1('no_such_field', [1, 2, 3]))
def f_dup(objs):
    return dump(objs) + dump(objs[:1])
edit('line_duplicated', f_dup)
def f_cut(objs):
    text = dump(objs)
    return text[: len(text) - len(dump(objs[-1:])) // 2]
edit('last_line_cut', f_cut)
def f_cut_mid(objs):
    a = dump(objs[:1]); b = dump(objs[1:2]); c = dump(objs[2:])
    return a + b[: len(b) // 2] + '\n' + c
edit('middle_line_cut', f_cut_mid)
def f_blank(objs):
    return dump(objs[:2]) + '\n' + dump(objs[2:])
edit('blank_line', f_blank)
def f_raw(token):
    def f(objs):
        objs[0]['z'] = [RAW, 0.5]
        return dump(objs).replace('"' + RAW + '"', token)
    return f
edit('z_1e400', f_raw('1e400'))
edit('z_NaN_literal', f_raw('NaN'))
edit('z_Infinity_literal', f_raw('Infinity'))
# A NO_CONVERGENCE point edited into a certified one (its z is not a
# solution: the certificate at z must refuse it).
def f_certify(objs):
    for o in objs:
        o['termination'] = 'CONVERGENCE'
        o['certified'] = True
edit('noconv_certified', f_certify, nc)
# A point moved to another preference's z (certified at the wrong place).
def f_swap(objs):
    objs[0]['z'], objs[1]['z'] = objs[1]['z'], objs[0]['z']
    objs[0]['objectives'], objs[1]['objectives'] = objs[1]['objectives'], objs[0]['objectives']
edit('certified_point_swapped', f_swap)
os.makedirs(os.path.join(fix, 'edits'), exist_ok=True)
for name, text in edits.items():
    open(os.path.join(fix, 'edits', name + '.jsonl'), 'w').write(text)
EOF
for f in "$FIX"/edits/*.jsonl; do
  name=$(basename "$f" .jsonl)
  c_new ecmo_solve resume-edits refuse
  C_SETUP="cp $(printf '%q' "$f") front.jsonl"
  C_PFX=(front.jsonl)
  args=("${RESUME_ARGS[@]}")
  case $name in
    last_line_cut) C_EXPECT=ok; C_QUICK=1 ;;   # documented: a cut last line is dropped, exit 0
    unknown_field|blank_line) C_EXPECT=any ;;
    # "certified" is written (result_writer.cc) but never read: termination
    # decides, and a resumed CONVERGENCE point is certified again at its z.
    certified_string) C_EXPECT=any ;;
    # A repeated line is dropped and said so ("dropped 1 duplicate(s)"):
    # every distinct line must survive, not the file's bytes.
    line_duplicated) C_EXPECT=any; C_PFX=(); C_LINES=(front.jsonl) ;;
    preference_given_other) C_EXPECT=any ;;
    noconv_certified) args=(--problem=gebken_circle --sweep=3 --max_iterations=2 --jsonl=front.jsonl --resume); C_FRAG="certificate"; C_QUICK=1 ;;
    z_null|objectives_null) C_FRAG="null, NaN or infinity" ;;
    z_moved|objectives_zero) C_FRAG="at its z" ;;
    settings_max_iterations) C_FRAG="max_iterations (file: 200"; C_QUICK=1 ;;
    middle_line_cut) C_FRAG="not JSON" ;;
  esac
  [[ $C_EXPECT == refuse && -z $C_FRAG ]] && C_FRAG="front.jsonl:"
  c_emit "${args[@]}"
done

# ---- Output paths.
out_case() {  # TOOL EXPECT FRAG SETUP ARGS...
  c_new "$1" files-out "$2" "$3"; C_SETUP=$4; shift 4; c_emit "$@"
}
S=(--problem=gebken_circle --sweep=3)
cp_front="cp $(printf '%q' "$FIX/sweep.jsonl") front.jsonl"
for flag in output csv jsonl plot; do
  ext=json; [[ $flag == csv ]] && ext=csv; [[ $flag == jsonl ]] && ext=jsonl; [[ $flag == plot ]] && ext=png
  out_case ecmo_solve refuse "" "" "${S[@]}" "--$flag=no_such_dir/x.$ext"
  out_case ecmo_solve refuse "" ": > a_file" "${S[@]}" "--$flag=a_file/x.$ext"
  out_case ecmo_solve refuse "" "mkdir -p d.$ext" "${S[@]}" "--$flag=d.$ext"
  out_case ecmo_solve refuse "" "" "${S[@]}" "--$flag=$(head -c 300 /dev/zero | tr '\0' 'y').$ext"
done
# /dev/full: documented codes (README, exit status; tests/README).
c_new ecmo_solve files-out refuse "No space left on device"; C_CODES=4; C_QUICK=1; c_emit "${S[@]}" --output=/dev/full
c_new ecmo_solve files-out refuse "No space left on device"; C_CODES=4; c_emit "${S[@]}" --jsonl=/dev/full
c_new ecmo_solve files-out refuse; c_emit "${S[@]}" --csv=/dev/full
c_new ecmo_solve files-out any-nonzero; c_emit "${S[@]}" --plot=/dev/full
# Two outputs naming one file.
for pair in "--csv=a.csv --jsonl=./a.csv" "--output=b.json --csv=./b.json" \
            "--output=c.json --jsonl=c.json" "--plot=p.png --output=p.dat" \
            "--plot=p.png --csv=p.gp" "--plot=p.png --jsonl=p_convergence.dat" \
            "--plot=p.png --output=p_convergence.png" "--csv=d/../e.csv --output=e.csv"; do
  read -r -a two <<< "$pair"
  c_new ecmo_solve files-out refuse "name the same file"
  [[ $pair == *a.csv* ]] && C_QUICK=1
  C_SETUP="mkdir -p d"
  c_emit "${S[@]}" "${two[@]}"
done
c_new ecmo_solve files-out refuse "name the same file"
C_SETUP='printf x > h1.csv && ln h1.csv h2.csv'
c_emit "${S[@]}" --csv=h1.csv --output=h2.csv
c_new ecmo_solve files-out refuse "name the same file"
C_SETUP='printf x > t.csv && ln -s t.csv l.csv'
c_emit "${S[@]}" --csv=t.csv --jsonl=l.csv
# One file named through a symlinked directory (neither exists yet).
c_new ecmo_solve files-out refuse "name the same file"
C_SETUP='mkdir -p real && ln -s real link'
c_emit "${S[@]}" --csv=real/x.csv --jsonl=link/x.csv
# A file that is both --csv and --jsonl with --resume.
c_new ecmo_solve files-out refuse "name the same file"
C_SETUP=$cp_front; C_REF=(front.jsonl); C_QUICK=1
c_emit --problem=gebken_circle --sweep=5 --jsonl=front.jsonl --csv=front.jsonl --resume
c_new ecmo_solve files-out refuse "name the same file"
C_SETUP=$cp_front; C_REF=(front.jsonl)
c_emit --problem=gebken_circle --sweep=5 --jsonl=front.jsonl --output=./front.jsonl --resume
# ecmo_plot: the input as any of its outputs (image, data, script,
# convergence plot's).
for pair in "front.png front.png" "front.dat front.png" "front.gp front.png" \
            "front_convergence.png front.png" "front_convergence.dat front.png" \
            "front_convergence.gp front.svg" "front.svg front.svg" "front.dat ./front.png"; do
  read -r in out <<< "$pair"
  c_new ecmo_plot files-out refuse "which is the --input file"
  [[ $in == front.dat ]] && C_QUICK=1
  C_SETUP="cp $(printf '%q' "$FIX/sweep.jsonl") $in"; C_RO=("$in")
  c_emit "--input=$in" "--output=$out"
done
c_new ecmo_plot files-out refuse "which is the --input file"
C_SETUP="cp $(printf '%q' "$FIX/sweep.jsonl") in.dat && ln -s in.dat link.dat"; C_RO=(in.dat)
c_emit --input=in.dat --output=link.png
c_new ecmo_plot files-out refuse "which is the --input file"
C_SETUP="cp $(printf '%q' "$FIX/sweep.jsonl") in.dat && ln in.dat hard.dat"; C_RO=(in.dat)
c_emit --input=in.dat --output=hard.png
for out in no_such_dir/x.png a_file/x.png x.jpg x "" dir.png; do
  c_new ecmo_plot files-out refuse
  C_SETUP="cp $(printf '%q' "$FIX/sweep.jsonl") front.jsonl && : > a_file && mkdir -p dir.png"; C_RO=(front.jsonl)
  c_emit --input=front.jsonl "--output=$out"
done
# ecmo_mtbl --output_dir.
for setup_dir in ": > a_file|a_file" ": > a_file|a_file/sub" "|no/such/parent/dir" "|/dev/null" \
                 "mkdir -p d/points.jsonl|d" "mkdir -p d/study.json|d" "mkdir -p d/.lock|d"; do
  c_new ecmo_mtbl files-out refuse "--output_dir"
  C_SETUP=${setup_dir%%|*}
  [[ $setup_dir == *a_file ]] && C_QUICK=1
  [[ $setup_dir == *study.json* || $setup_dir == *.lock* || $setup_dir == *points.jsonl* ]] && C_FRAG=""
  c_emit --smoke --task=mtbl_logistic --method=soba-ls "--output_dir=${setup_dir#*|}"
done
# Directories root cannot be denied.
probe=$W/probe_dir
mkdir -p "$probe"; chmod 000 "$probe"
if touch "$probe/x" 2> /dev/null; then
  skip "unwritable directories (chmod 000) for --output, --csv, --jsonl, --plot, ecmo_plot --output, ecmo_mtbl --output_dir: running as $(id -un), chmod 000 does not deny writes (the ENOTDIR, /dev/full and missing-directory cases stand in)"
else
  for flag in output csv jsonl plot; do
    c_new ecmo_solve files-out refuse; C_SETUP="mkdir -p ro && chmod 000 ro"
    c_emit "${S[@]}" "--$flag=ro/x.$( [[ $flag == plot ]] && echo png || echo out)"
  done
  c_new ecmo_plot files-out refuse; C_SETUP="$cp_front && mkdir -p ro && chmod 000 ro"; C_RO=(front.jsonl)
  c_emit --input=front.jsonl --output=ro/x.png
  c_new ecmo_mtbl files-out refuse; C_SETUP="mkdir -p ro && chmod 000 ro"
  c_emit --smoke --task=mtbl_logistic --method=soba-ls --output_dir=ro/out
fi
chmod 700 "$probe"

# ---- ecmo_mtbl --resume on a real --smoke study's points.jsonl, one field
# of one run's line (line 2) or of the header at a time, set to another
# type or an extreme value.
MTBL_RESUME=(--smoke --task=mtbl_logistic --output_dir=out --resume)
python3 - "$FIX" <<'EOF'
import json, os, sys
fix = sys.argv[1]
src = os.path.join(fix, 'mtbl', 'points.jsonl')
lines = open(src).read().splitlines()
out_dir = os.path.join(fix, 'mtbl_edits')
os.makedirs(out_dir, exist_ok=True)
RAW = '__RAW__'
values = {
    'null': None, 'string': 'abc', 'array': [1, 'x'], 'object': {'a': 1},
    'huge': 1e308, 'neg': -1, 'frac': 1.5, 'big_int': 18446744073709551616,
    'true': True, 'empty_array': [], 'raw_1e400': RAW,
}
def paths(o, prefix=''):
    for k, v in o.items():
        p = prefix + k
        yield p
        if isinstance(v, dict) and k in ('point', 'seed', 'start'):
            yield from paths(v, p + '.')
manifest = []
def write(name, line_no, obj, raw=None):
    text = list(lines)
    dumped = json.dumps(obj, separators=(',', ':'), ensure_ascii=False)
    if raw is not None:
        dumped = dumped.replace('"' + RAW + '"', raw)
    text[line_no - 1] = dumped
    open(os.path.join(out_dir, name + '.jsonl'), 'w').write('\n'.join(text) + '\n')
for line_no in (2,):
    base = json.loads(lines[line_no - 1])
    for p in paths(base):
        for tag, v in values.items():
            obj = json.loads(lines[line_no - 1])
            o = obj
            keys = p.split('.')
            for k in keys[:-1]:
                o = o[k]
            if type(o[keys[-1]]) is type(v) and o[keys[-1]] == v:
                continue  # not an edit
            o[keys[-1]] = v
            name = 'L%d.%s.%s' % (line_no, p, tag)
            write(name, line_no, obj, '1e400' if v == RAW else None)
            manifest.append(name)
        obj = json.loads(lines[line_no - 1])
        o = obj
        keys = p.split('.')
        for k in keys[:-1]:
            o = o[k]
        del o[keys[-1]]
        write('L%d.%s.deleted' % (line_no, p), line_no, obj)
        manifest.append('L%d.%s.deleted' % (line_no, p))
header = json.loads(lines[0])
for key, v in [('settings', None), ('settings', 'x'), ('settings', [])]:
    obj = dict(header); obj[key] = v
    name = 'L1.%s.%s' % (key, type(v).__name__)
    write(name, 1, obj); manifest.append(name)
for key in list(header['settings']):
    for tag, v in [('null', None), ('string', 'abc')]:
        obj = json.loads(lines[0]); obj['settings'][key] = v
        name = 'L1.settings.%s.%s' % (key, tag)
        write(name, 1, obj); manifest.append(name)
# Whole-line edits.
def write_text(name, text):
    open(os.path.join(out_dir, name + '.jsonl'), 'w').write(text)
    manifest.append(name)
write_text('line.duplicated', '\n'.join(lines + [lines[1]]) + '\n')
write_text('line.cut_last', '\n'.join(lines)[: -len(lines[-1]) // 2])
write_text('line.cut_middle', '\n'.join(lines[:2] + [lines[2][: len(lines[2]) // 2]] + lines[3:]) + '\n')
write_text('line.header_only', lines[0] + '\n')
write_text('line.no_header', '\n'.join(lines[1:]) + '\n')
write_text('line.not_an_object', '\n'.join(lines[:1] + ['[1,2,3]'] + lines[2:]) + '\n')
write_text('line.deep', '\n'.join(lines[:1] + ['[' * 60000 + ']' * 60000] + lines[1:]) + '\n')
write_text('line.task_10mb_string', '\n'.join(lines[:1] + ['{"task":"' + '7' * (10 << 20) + '"}'] + lines[1:]) + '\n')
open(os.path.join(out_dir, 'MANIFEST'), 'w').write('\n'.join(manifest) + '\n')
EOF
# What each edit must do: the reader (ReadRunLine, PointFromJson) requires
# every field with its type and range; numbers written as Number() may be
# null; lower_level_gap and lambda_max may be negative; the study's header
# must equal this run's settings.
mtbl_edit_expect() {
  local name=$1 field tag
  case $name in
    line.duplicated) echo ok; return ;;      # "the first line of a task wins"
    line.header_only) echo ok; return ;;     # a study killed before its first run
    line.cut_last) echo ok; return ;;        # a last line cut short is dropped
    line.*) echo refuse; return ;;
    L1.*) echo refuse; return ;;
  esac
  field=${name#L2.}; tag=${field##*.}; field=${field%.*}
  [[ $tag == deleted ]] && { echo refuse; return; }
  case $field in
    point.kkt_residual_sq|point.grad_y_g_norm|seed.start.grad_y_g_norm)
      case $tag in null|huge|frac|big_int) echo ok ;; *) echo refuse ;; esac ;;
    point.lower_level_gap|seed.lambda_max)
      case $tag in null|huge|frac|big_int|neg) echo ok ;; *) echo refuse ;; esac ;;
    point.seconds)
      case $tag in huge|frac|big_int) echo ok ;; *) echo refuse ;; esac ;;
    point.iterations)
      case $tag in neg) echo ok ;; *) echo refuse ;; esac ;;  # -1: not reported
    point.termination|point.message)
      case $tag in string) echo any ;; *) echo refuse ;; esac ;;
    point.losses|point.losses_as_returned|point.reference_point|point.objective_scale)
      case $tag in empty_array) echo any ;; *) echo refuse ;; esac ;;  # "S entries or none"
    point.rank)
      case $tag in *) echo refuse ;; esac ;;
    *) echo refuse ;;
  esac
}
n_edit=0
while read -r name; do
  [[ -n $name ]] || continue
  n_edit=$((n_edit + 1))
  c_new ecmo_mtbl mtbl-resume-fields "$(mtbl_edit_expect "$name")"
  C_SETUP="mkdir -p out && cp $(printf '%q' "$FIX/mtbl_edits/$name.jsonl") out/points.jsonl"
  C_PFX=(out/points.jsonl)
  [[ $name == line.duplicated ]] && { C_PFX=(); C_LINES=(out/points.jsonl); }
  C_NOTE="edit $name"
  if [[ $C_EXPECT == refuse ]]; then
    C_FRAG="points.jsonl:"
    case $name in
      L2.*.deleted) f=${name#L2.}; f=${f%.deleted}; C_FRAG="${f##*.} is missing" ;;
      L2.seed.null|L2.seed.string|L2.seed.array|L2.seed.huge|L2.seed.neg|L2.seed.true) C_FRAG="seed is not an object" ;;
      L1.*) C_FRAG="" ;;
    esac
  fi
  case $name in
    L2.seed.string|L2.point.losses.null|L2.task.big_int|line.cut_last|line.deep|L2.point.seed.string|line.task_10mb_string) C_QUICK=1 ;;
  esac
  c_emit "${MTBL_RESUME[@]}"
done < "$FIX/mtbl_edits/MANIFEST"

NUM_GENERATED=$NCASE
echo "hostile battery: $NUM_GENERATED cases generated ($(( $(date +%s) - START_TIME )) s), running $JOBS at a time"

# ---------------------------------------------------------------------------
# Run the cases.
# ---------------------------------------------------------------------------
find "$W/cases" -mindepth 1 -maxdepth 1 -type d | sort |
  xargs -P "$JOBS" -n 1 "$BASH" "$SELF" --run-case
echo "hostile battery: cases done ($(( $(date +%s) - START_TIME )) s)"

# ---------------------------------------------------------------------------
# Series: kill and resume, concurrent resumes. Each cycle is one result.
# ---------------------------------------------------------------------------
# The series check statuses themselves: no errexit from here on.
set +e
NSERIES=0
SERIES_DIR=""
series_result() {  # TOOL CATEGORY EXPECT RC ELAPSED VERDICT CMD NOTE
  NSERIES=$((NSERIES + 1))
  SERIES_DIR=$(printf '%s/series/%04d' "$W" "$NSERIES")
  mkdir -p "$SERIES_DIR"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" > "$SERIES_DIR/result"
}
# Crash / hang verdicts of one status and stderr file.
status_verdict() {  # RC STDERR_FILE
  if (( $1 == 124 )); then echo HANG
  elif (( $1 >= 128 )) || grep -aqE "$crash_pattern" "$2"; then echo CRASH
  fi
}

cat > "$W/compare.py" <<'EOF'
# compare.py KIND REF_DIR RUN_DIR REL_TOL: the points of an interrupted and
# resumed run against an uninterrupted one. Prints one line per problem.
import csv, json, math, sys
kind, ref_dir, run_dir, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
problems = []
def close(a, b, scale):
    if a is None or b is None:
        return a is None and b is None
    # Relative to the value, or to the component's scale over the whole
    # front (an objective that is 0 at a front's end: 1e-70 against 1e-86).
    return a == b or abs(a - b) <= tol * max(abs(a), abs(b), scale)
def jsonl_points(path, key, value):
    pts, dups = {}, []
    with open(path, 'rb') as f:
        data = f.read()
    if data and not data.endswith(b'\n'):
        problems.append('%s: last line has no newline' % path)
    for n, line in enumerate(data.splitlines(), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            problems.append('%s:%d: not JSON (%s)' % (path, n, str(e)[:60]))
            continue
        k = key(o)
        if k is None:
            continue
        if k in pts:
            dups.append(k)
        pts[k] = value(o)
    return pts, dups
def compare(name, ref, run, dups):
    if dups:
        problems.append('%s: duplicated %s' % (name, sorted(dups)[:10]))
    missing = sorted(set(ref) - set(run))
    extra = sorted(set(run) - set(ref))
    if missing:
        problems.append('%s: %d missing, e.g. %s' % (name, len(missing), missing[:10]))
    if extra:
        problems.append('%s: %d unexpected, e.g. %s' % (name, len(extra), extra[:10]))
    width = max((len(v) for v in ref.values()), default=0)
    scale = [max([abs(v[j]) for v in ref.values() if len(v) > j and v[j] is not None] + [0.0])
             for j in range(width)]
    bad = [k for k in sorted(set(ref) & set(run))
           if len(ref[k]) != len(run[k]) or
           not all(close(a, b, s) for a, b, s in zip(ref[k], run[k], scale))]
    if bad:
        k = bad[0]
        problems.append('%s: %d points differ, e.g. %s: %s vs %s' % (name, len(bad), k, ref[k], run[k]))
if kind == 'solve':
    key = lambda o: o.get('index')
    val = lambda o: list(o.get('objectives') or []) + list(o.get('preference') or [])
    ref, _ = jsonl_points(ref_dir + '/front.jsonl', key, val)
    run, dups = jsonl_points(run_dir + '/front.jsonl', key, val)
    compare('front.jsonl', ref, run, dups)
    def csv_points(path):
        rows = list(csv.DictReader(open(path)))
        idx = [int(r['index']) for r in rows]
        if idx != sorted(idx):
            problems.append('%s: rows not in index order' % path)
        fcols = [c for c in rows[0] if c.startswith('f_') or c.startswith('lambda_')] if rows else []
        pts, dups = {}, []
        for r in rows:
            k = int(r['index'])
            if k in pts:
                dups.append(k)
            pts[k] = [float(r[c]) for c in fcols]
        return pts, dups
    try:
        ref, _ = csv_points(ref_dir + '/front.csv')
        run, dups = csv_points(run_dir + '/front.csv')
        compare('front.csv', ref, run, dups)
    except Exception as e:
        problems.append('front.csv unreadable: %s' % str(e)[:100])
else:
    key = lambda o: o.get('task')
    val = lambda o: [None if x is None else float(x) for x in o['point']['losses']]
    ref, _ = jsonl_points(ref_dir + '/points.jsonl', key, val)
    run, dups = jsonl_points(run_dir + '/points.jsonl', key, val)
    # wc-reduced's points agree to the solver's tolerance, not to the bit:
    # the reduced form carries its lower-level warm start from run to run
    # on a worker, so a point depends on what that worker solved before,
    # "as with --num_threads=2 in one process, or after --resume"
    # (docs/distributed.md; ecmo_mtbl_test.cc compares them at 1e-6).
    method, _ = jsonl_points(ref_dir + '/points.jsonl', key, lambda o: o['point']['method'])
    reduced = {k for k, m in method.items() if m == 'wc-reduced'}
    def part(points, inside):
        return {k: v for k, v in points.items() if (k in reduced) == inside}
    strict = tol
    tol = max(strict, 1e-6)
    compare('points.jsonl (wc-reduced)', part(ref, True), part(run, True),
            [d for d in dups if d in reduced])
    tol = strict
    compare('points.jsonl', part(ref, False), part(run, False),
            [d for d in dups if d not in reduced])
    try:
        rows = list(csv.reader(open(run_dir + '/points.csv')))
        if len(rows) - 1 != len(ref):
            problems.append('points.csv has %d rows, expected %d' % (len(rows) - 1, len(ref)))
    except Exception as e:
        problems.append('points.csv unreadable: %s' % str(e)[:100])
for p in problems:
    print(p)
EOF

# One kill-and-resume series: TOOL NAME KILLS TOL ARGS... (the tool's
# arguments without the output files; the series adds them).
kill_series() {
  local tool=$1 name=$2 kills=$3 tol=$4
  shift 4
  local -a args=("$@") outs
  local bin="$BIN_DIR/$tool" kind=solve
  if [[ $tool == ecmo_mtbl ]]; then kind=mtbl; outs=(--output_dir=.); else outs=(--jsonl=front.jsonl --csv=front.csv); fi
  local ref="$W/kill/$name.ref" t0 t1 ref_ms rc
  mkdir -p "$ref"
  t0=$(date +%s%N)
  (cd "$ref" && exec timeout "$CASE_TIMEOUT" "$bin" "${args[@]}" "${outs[@]}" > stdout 2> stderr)
  rc=$?
  t1=$(date +%s%N)
  ref_ms=$(( (t1 - t0) / 1000000 ))
  local ref_rc=$rc v
  v=$(status_verdict "$rc" "$ref/stderr")
  [[ -z $v && $rc != 0 && $rc != 3 ]] && v=STATUS
  series_result "$tool" kill-resume ran "$rc" "$ref_ms" "${v:-pass}" \
    "$(show_cmd "$tool" "${args[@]}" "${outs[@]}")" "uninterrupted reference of $name"
  cp "$ref/stderr" "$SERIES_DIR/stderr"
  [[ -z $v ]] || return 0
  local i
  for ((i = 1; i <= kills; i++)); do
    local d="$W/kill/$name.$i" kill_ms note="" verdict="" rc2 lo hi
    mkdir -p "$d"
    # Kill between 3% and 90% of the uninterrupted run's time.
    lo=$(( ref_ms * 3 / 100 )); hi=$(( ref_ms * 90 / 100 ))
    kill_ms=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1) ))
    (cd "$d" && exec "$bin" "${args[@]}" "${outs[@]}" > stdout.1 2> stderr.1) &
    local pid=$!
    sleep "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))"
    kill -KILL "$pid" 2> /dev/null || note+="finished before the kill; "
    wait "$pid" 2> /dev/null
    note+="killed at ${kill_ms} ms"
    # Every third cycle: the resume is killed too, once.
    if (( i % 3 == 0 )); then
      local kill2=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1) ))
      (cd "$d" && exec "$bin" "${args[@]}" "${outs[@]}" --resume > stdout.2 2> stderr.2) &
      pid=$!
      sleep "$(printf '%d.%03d' $((kill2 / 1000)) $((kill2 % 1000)))"
      kill -KILL "$pid" 2> /dev/null
      wait "$pid" 2> /dev/null
      note+=", its resume killed at ${kill2} ms"
    fi
    t0=$(date +%s%N)
    (cd "$d" && timeout "$CASE_TIMEOUT" "$bin" "${args[@]}" "${outs[@]}" --resume > stdout 2> stderr)
    rc2=$?
    t1=$(date +%s%N)
    verdict=$(status_verdict "$rc2" "$d/stderr")
    if [[ -z $verdict ]]; then
      [[ $rc2 == "$ref_rc" ]] || verdict=STATUS
      local diff
      diff=$(python3 "$W/compare.py" "$kind" "$ref" "$d" "$tol" 2>&1)
      if [[ -n $diff ]]; then
        verdict=${verdict:+$verdict,}LOSS
        note+="; $(echo "$diff" | head -3 | tr '\n' ';')"
      fi
    fi
    series_result "$tool" kill-resume ran "$rc2" $(( (t1 - t0) / 1000000 )) "${verdict:-pass}" \
      "$(show_cmd "$tool" "${args[@]}" "${outs[@]}" --resume)" "$note"
    cp "$d/stderr" "$SERIES_DIR/stderr" 2> /dev/null
    [[ -n $verdict ]] || rm -rf "$d"
  done
}

# Two --resume runs of one study / sweep at once: one takes the lock (or
# both run one after the other); nothing is torn, and a third --resume
# finishes with the uninterrupted run's points.
concurrent_series() {  # TOOL NAME REPEATS LOCK_MESSAGE ARGS...
  local tool=$1 name=$2 repeats=$3 lock=$4
  shift 4
  local -a args=("$@") outs
  local bin="$BIN_DIR/$tool" kind=solve
  if [[ $tool == ecmo_mtbl ]]; then kind=mtbl; outs=(--output_dir=.); else outs=(--jsonl=front.jsonl --csv=front.csv); fi
  local ref="$W/kill/$name.ref" i
  [[ -d $ref ]] || return 0
  for ((i = 1; i <= repeats; i++)); do
    local d="$W/concurrent/$name.$i" verdict="" note=""
    mkdir -p "$d"
    if (( i % 2 == 0 )); then
      # Start from a study cut after half of its lines.
      local n
      n=$(wc -l < "$ref/$( [[ $kind == mtbl ]] && echo points.jsonl || echo front.jsonl)")
      head -n $((n / 2)) "$ref/$( [[ $kind == mtbl ]] && echo points.jsonl || echo front.jsonl)" \
        > "$d/$( [[ $kind == mtbl ]] && echo points.jsonl || echo front.jsonl)"
      note="from half of the file; "
    fi
    (cd "$d" && exec timeout "$CASE_TIMEOUT" "$bin" "${args[@]}" "${outs[@]}" --resume > stdout.a 2> stderr.a) &
    local pa=$!
    (cd "$d" && exec timeout "$CASE_TIMEOUT" "$bin" "${args[@]}" "${outs[@]}" --resume > stdout.b 2> stderr.b) &
    local pb=$!
    local ra=0 rb=0
    wait "$pa" || ra=$?
    wait "$pb" || rb=$?
    note+="statuses $ra and $rb"
    for x in a:$ra b:$rb; do
      local who=${x%%:*} r=${x#*:} v
      v=$(status_verdict "$r" "$d/stderr.$who")
      [[ -n $v ]] && verdict=$v
      if [[ -z $v && $r != 0 && $r != 3 ]]; then
        if [[ $r == 2 ]] && grep -aqF -- "$lock" "$d/stderr.$who"; then :; else verdict=${verdict:+$verdict,}STATUS; fi
      fi
    done
    local rc3=0
    (cd "$d" && timeout "$CASE_TIMEOUT" "$bin" "${args[@]}" "${outs[@]}" --resume > stdout 2> stderr) || rc3=$?
    local v3
    v3=$(status_verdict "$rc3" "$d/stderr")
    [[ -n $v3 ]] && verdict=${verdict:+$verdict,}$v3
    if [[ -z $v3 ]]; then
      [[ $rc3 == 0 || $rc3 == 3 ]] || { verdict=${verdict:+$verdict,}LOSS; note+="; the third --resume exits $rc3: $(head -c 200 "$d/stderr")"; }
      local diff
      diff=$(python3 "$W/compare.py" "$kind" "$ref" "$d" 1e-9 2>&1)
      [[ -z $diff ]] || { verdict=${verdict:+$verdict,}LOSS; note+="; $(echo "$diff" | head -3 | tr '\n' ';')"; }
    fi
    series_result "$tool" concurrency any "$ra/$rb/$rc3" 0 "${verdict:-pass}" \
      "$(show_cmd "$tool" "${args[@]}" "${outs[@]}" --resume) (twice at once)" "$note"
    cat "$d/stderr.a" "$d/stderr.b" > "$SERIES_DIR/stderr" 2> /dev/null
    [[ -n $verdict ]] || rm -rf "$d"
  done
}

SPHERE=(--problem=sphere_octant --preferences=das-dennis:80 --warm_start=false)
REFINE=(--problem=sphere_octant --preferences=das-dennis:6 --refine=400 --warm_start=false)
TWO=(--problem=bnh --sweep=2000 --warm_start=false --num_threads=2)
WARM=(--problem=sphere_octant --preferences=das-dennis:80)
MSMOKE=(--smoke --task=mtbl_logistic)
if (( QUICK )); then
  kill_series ecmo_solve sphere 2 1e-9 "${SPHERE[@]}"
  concurrent_series ecmo_solve sphere 1 "another ecmo_solve" "${SPHERE[@]}"
  skip "quick mode: the refinement, two-thread, warm-start and ecmo_mtbl kill series, and ecmo_mtbl's concurrent resumes"
else
  # Cold starts: points equal an uninterrupted run's to the bit (README,
  # "Determinism"); compared at 1e-9 relative.
  kill_series ecmo_solve sphere 8 1e-9 "${SPHERE[@]}"
  kill_series ecmo_solve refine 6 1e-9 "${REFINE[@]}"
  kill_series ecmo_solve two_threads 3 1e-9 "${TWO[@]}"
  # Warm starts: a resumed point may start from another neighbour than in
  # the uninterrupted run, so its objectives agree to the solver's
  # tolerance, not to the bit (README: warm sweeps agree within 1e-4 in z).
  kill_series ecmo_solve warm 3 1e-6 "${WARM[@]}"
  kill_series ecmo_mtbl smoke 4 1e-9 "${MSMOKE[@]}"
  concurrent_series ecmo_solve sphere 2 "another ecmo_solve" "${SPHERE[@]}"
  concurrent_series ecmo_mtbl smoke 4 "another ecmo_mtbl is writing" "${MSMOKE[@]}"
fi

# The uninterrupted references, unless a cycle failed (then they are kept
# to compare with).
if ! grep -qv $'\tpass\t' <(cut -f6 "$W"/series/*/result 2> /dev/null | sed 's/.*/\t&\t/'); then
  rm -rf "$W/kill" "$W/concurrent"
fi

# ---------------------------------------------------------------------------
# Report.
# ---------------------------------------------------------------------------
ELAPSED=$(( $(date +%s) - START_TIME ))
RESULTS=$W/results.tsv
: > "$RESULTS"
for f in "$W"/cases/*/result "$W"/series/*/result; do
  [[ -f $f ]] || continue
  printf '%s\t' "$(dirname "$f")" >> "$RESULTS"
  cat "$f" >> "$RESULTS"
done
missing=$(( NUM_GENERATED - $(find "$W/cases" -mindepth 2 -maxdepth 2 -name result | wc -l) ))
# Open defects found by this battery (tool defects, not expectations):
# ID, tool, a regular expression searched in the case's command line, the
# verdicts it explains, what is wrong. A failing case is "known" when the
# entries that match it explain all of its verdicts.
cat > "$W/known_defects.tsv" <<'EOF'
EOF
status=0
python3 - "$RESULTS" "$missing" "$W/known_defects.tsv" "$ALLOW_KNOWN" <<'EOF' || status=$?
import collections, os, re, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
allow_known = sys.argv[4] == '1'
known = []
for l in open(sys.argv[3]):
    if l.strip():
        kid, tool, pattern, verdicts, what = l.rstrip('\n').split('\t')
        known.append((kid, re.compile(tool), re.compile(pattern), set(verdicts.split(',')), what))
known_hits = collections.Counter()   # failing cases a defect explains
known_seen = collections.Counter()   # cases a defect's pattern matches
def known_of(tool, cmd, verdict):
    matches = [k for k in known if k[1].fullmatch(tool) and k[2].search(cmd)]
    for k in matches:
        known_seen[k[0]] += 1
    if verdict == 'pass' or not matches:
        return []
    explained = set().union(*(k[3] for k in matches))
    return [k[0] for k in matches] if set(verdict.split(',')) <= explained else []
cols = ['CRASH', 'LOSS', 'FALSE', 'HANG', 'MSG', 'STATUS', 'SETUP', 'EXEC']
names = {'CRASH': 'crash', 'LOSS': 'data loss', 'FALSE': 'false succ.', 'HANG': 'hang',
         'MSG': 'bad message', 'STATUS': 'wrong status', 'SETUP': 'setup err'}
table = collections.OrderedDict()
fails = []
for r in rows:
    d, tool, cat, expect, rc, ms, verdict, cmd = r[:8]
    note = r[8] if len(r) > 8 else ''
    key = (tool, cat)
    t = table.setdefault(key, collections.Counter())
    t['tried'] += 1
    ids = known_of(tool, cmd, verdict)
    if verdict != 'pass':
        for v in verdict.split(','):
            t[v] += 1
        if ids:
            t['known'] += 1
            for i in ids:
                known_hits[i] += 1
        fails.append((d, tool, cat, expect, rc, verdict, cmd, note, ids))
tools = sorted({k[0] for k in table})
hdr = '%-11s %-20s %6s' % ('tool', 'category', 'tried') + ''.join(' %6s' % c.lower()[:6] for c in cols[:-1])
print()
print('%-11s %-20s %6s %6s %6s %6s %6s %6s %6s %6s' % ('tool', 'category', 'tried', 'crash', 'loss', 'false', 'hang', 'msg', 'status', 'known'))
total = collections.Counter()
for tool in tools:
    sub = collections.Counter()
    for (t, cat), c in table.items():
        if t != tool:
            continue
        print('%-11s %-20s %6d %6d %6d %6d %6d %6d %6d %6d' % (t, cat, c['tried'], c['CRASH'], c['LOSS'], c['FALSE'], c['HANG'], c['MSG'], c['STATUS'], c['known']))
        sub.update(c)
    print('%-11s %-20s %6d %6d %6d %6d %6d %6d %6d %6d' % (tool, '(all)', sub['tried'], sub['CRASH'], sub['LOSS'], sub['FALSE'], sub['HANG'], sub['MSG'], sub['STATUS'], sub['known']))
    total.update(sub)
print('%-11s %-20s %6d %6d %6d %6d %6d %6d %6d %6d' % ('all', '', total['tried'], total['CRASH'], total['LOSS'], total['FALSE'], total['HANG'], total['MSG'], total['STATUS'], total['known']))
print('(a case counts once per verdict; "known": failing cases explained by the open defects below)')
if total['SETUP'] or total['EXEC']:
    print('not run: %d cases whose setup failed (the battery), %d whose tool could not be started (status 126/127: rebuilt meanwhile?)' % (total['SETUP'], total['EXEC']))
if int(sys.argv[2]):
    print('cases without a result: %s' % sys.argv[2])
if fails:
    print('\nFailing cases (%d):' % len(fails))
    for d, tool, cat, expect, rc, verdict, cmd, note, ids in fails:
        print('\n[%s%s] %s / %s, expected %s, status %s  (%s)' % (
            verdict, ' = known ' + '+'.join(ids) if ids else '', tool, cat, expect, rc, d))
        print('  $ ' + cmd[:600])
        if note.strip():
            print('  note: ' + note.strip()[:400])
        err = os.path.join(d, 'stderr')
        if os.path.exists(err):
            with open(err, 'rb') as f:
                head = f.read(4096).decode('utf-8', 'replace').splitlines()[:3]
            for line in head:
                print('  stderr: ' + line[:240])
stale = [k for k in known if known_seen[k[0]] and not known_hits[k[0]]]
if known_hits or stale:
    print('\nOpen defects (known):')
    for k in known:
        if known_seen[k[0]]:
            print('  %s  %d failing of %d cases: %s' % (k[0], known_hits[k[0]], known_seen[k[0]], k[4]))
for k in stale:
    print('%s no longer fails in any of its %d cases: remove it from the list of open defects (known_defects.tsv in this script)' % (k[0], known_seen[k[0]]))
unknown = [f for f in fails if not f[8]]
if allow_known:
    failed = bool(unknown or stale or int(sys.argv[2]))
    print('\n--allow-known: %d failing cases, %d of them known defects, %d not' % (len(fails), len(fails) - len(unknown), len(unknown)))
else:
    failed = bool(fails or int(sys.argv[2]))
sys.exit(1 if failed else 0)
EOF
if [[ $(tools_fingerprint) != "$FINGERPRINT" ]]; then
  echo
  echo "The tools in $BIN_DIR changed during the run (rebuilt?): the results mix two builds; run the battery again."
  status=1
fi
if (( ${#SKIPPED[@]} )); then
  echo
  echo "Skipped (${#SKIPPED[@]}):"
  printf '  %s\n' "${SKIPPED[@]}"
fi
echo
if (( status )); then verdict="FAILURES, workspace kept: $W"
elif (( ALLOW_KNOWN )); then verdict="no failure outside the known defects"
else verdict="no failure"
fi
echo "hostile battery: $(wc -l < "$RESULTS") inputs in ${ELAPSED} s; $verdict"
if (( status == 0 && ! KEEP )); then
  chmod -R u+rwx "$W" 2> /dev/null || true
  rm -rf "$W"
elif (( status == 0 )); then
  echo "workspace kept: $W"
fi
exit "$status"
