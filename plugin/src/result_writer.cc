#include "ecmo/result_writer.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace ecmo {
namespace {

std::vector<double> ToVector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

nlohmann::json Blocks(const KktResidual& k) {
  return {{"simplex_sq", k.SimplexSq()},
          {"stationarity_sq", k.StationaritySq()},
          {"feasibility_sq", k.FeasibilitySq()},
          {"complementarity_sq", k.ComplementaritySq()}};
}

// Shortest text that reads back to the same double.
std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

}  // namespace

nlohmann::json SummaryToJson(const Solver::Summary& summary,
                             const std::string& problem_name) {
  nlohmann::json kkt = {
      {"residual_sq", summary.kkt.with_solver_multipliers.SquaredNorm()},
      {"residual_sq_least_squares",
       summary.kkt.with_least_squares_multipliers.SquaredNorm()},
      {"average_residual_sq", summary.average_kkt_residual_sq},
      {"blocks", Blocks(summary.kkt.with_solver_multipliers)},
      {"blocks_least_squares",
       Blocks(summary.kkt.with_least_squares_multipliers)},
      {"omega", ToVector(summary.kkt.solver_multipliers.omega)},
      {"nu", ToVector(summary.kkt.solver_multipliers.nu)},
      {"omega_least_squares",
       ToVector(summary.kkt.least_squares_multipliers.omega)},
      {"nu_least_squares", ToVector(summary.kkt.least_squares_multipliers.nu)},
  };
  nlohmann::json j = {
      {"problem", problem_name},
      {"strategy", StrategyTypeToString(summary.strategy)},
      {"preference", summary.preference},
      {"objective_offset", summary.objective_offset_used},
      {"termination", TerminationTypeName(summary.termination_type)},
      {"message", summary.message},
      {"iterations", summary.iterations},
      {"objective_evaluations", summary.evaluations.value_evaluations},
      {"gradient_evaluations", summary.evaluations.gradient_evaluations},
      {"wall_time_seconds", summary.total_time_in_seconds},
      {"rho", summary.final_rho},
      {"z", ToVector(summary.z)},
      {"objectives", ToVector(summary.objectives)},
      {"constraint_norm", summary.constraint_norm},
      {"kkt", kkt},
  };
  if (summary.strategy == StrategyType::WC_PENALTY_PGD && summary.eta > 0.0) {
    j["schedule"] = {{"step_rule", StepRuleToString(summary.step_rule)},
                     {"eta", summary.eta},
                     {"u", summary.penalty_u},
                     {"v", summary.penalty_v},
                     {"shortened_steps", summary.num_shortened_steps}};
  }
  return j;
}

std::string CsvHeader(int num_objectives, int num_parameters) {
  std::ostringstream os;
  os << "problem,strategy";
  for (int s = 1; s <= num_objectives; ++s) os << ",lambda_" << s;
  for (int s = 1; s <= num_objectives; ++s) os << ",f_" << s;
  os << ",rho,constraint_norm,kkt_residual_sq,kkt_residual_sq_least_squares,"
        "average_kkt_residual_sq,termination,iterations,gradient_evaluations,"
        "wall_time_seconds";
  for (int i = 1; i <= num_parameters; ++i) os << ",z_" << i;
  return os.str();
}

std::string CsvRow(const Solver::Summary& summary,
                   const std::string& problem_name) {
  std::ostringstream os;
  os << problem_name << "," << StrategyTypeToString(summary.strategy);
  for (double w : summary.preference) os << "," << Num(w);
  for (int s = 0; s < summary.objectives.size(); ++s) {
    os << "," << Num(summary.objectives[s]);
  }
  // Keep the column count fixed when the solve failed before evaluating.
  for (int s = static_cast<int>(summary.objectives.size());
       s < static_cast<int>(summary.preference.size()); ++s) {
    os << ",nan";
  }
  os << "," << Num(summary.final_rho) << "," << Num(summary.constraint_norm)
     << "," << Num(summary.kkt.with_solver_multipliers.SquaredNorm()) << ","
     << Num(summary.kkt.with_least_squares_multipliers.SquaredNorm()) << ","
     << Num(summary.average_kkt_residual_sq) << ","
     << TerminationTypeName(summary.termination_type) << ","
     << summary.iterations << ","
     << summary.evaluations.gradient_evaluations << ","
     << Num(summary.total_time_in_seconds);
  for (int i = 0; i < summary.z.size(); ++i) os << "," << Num(summary.z[i]);
  return os.str();
}

}  // namespace ecmo
