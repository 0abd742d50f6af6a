// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The multi-task bilevel learning (MTBL) baselines that the WC-Penalty
// paper compares against, in their deterministic (full-batch) form, on the
// SAME oracles as the WC strategies: the upper objectives and their
// gradients come from an ecmo::MtblEvaluator, the lower-level gradients and
// Hessian-vector products from its LowerLevel. Work is counted in the same
// units (upper-gradient evaluations, lower-level gradients, Hessian-vector
// products) so that budgets compare.
//
//   MOML     (Ye et al. 2021): T gradient steps on g(x, .) from the current
//            y, the ITD hypergradient h_s of every f_s through them
//            (reverse mode), MGDA's min-norm combination d = sum lambda_s
//            h_s (optionally normalized first), x <- x - mu d, y <- y^T.
//            No preference.
//   MOCO     (Fernando et al. 2023, inside MOML's loop as in the public
//            multi-objective bilevel code): MOML's inner loop and
//            hypergradients, then MoCo's gradient tracking Y and weight
//            update lambda <- softmax(lambda - gamma_k (Y^T Y + rho I)
//            lambda), x <- x - mu Y lambda. No preference.
//   FORUM    (Ye et al. 2024): the value-function reformulation q(x, y) =
//            g(x, y) - g(x, y^T) <= 0 with first-order gradients only (no
//            Hessian products), the (S+1)-variable QP of the reference code
//            solved exactly, momentum on lambda, a joint step on (x, y).
//            Needs LowerLevel::GradX. No preference.
//   ITD_LS   (Ji et al. 2021) on sum_s w_s f_s: inner loop, one reverse ITD
//            hypergradient, x <- x - mu hypergradient. One point per w.
//   SOBA_LS  (Dagreou et al. 2022) on sum_s w_s f_s: the single-loop
//            (x, y, v) update with decaying steps. One point per w.
//
// Every choice that the reference codes leave open is stated here and,
// where it is a knob, is an Options field:
//   - plain (deterministic, full-batch) gradient steps with constant step
//     sizes everywhere the reference codes use Adam (MOML, MoCo, FORUM);
//   - MOML and MoCo warm-start the lower level with y <- y^T (the inner
//     loop's last iterate) instead of the official code's separate Adam
//     step on the "real" lower-level variable;
//   - the inner loop always starts from the current y (warm start) and is
//     treated as a constant of x at its start (stocBiO's convention);
//   - MoCo uses the softmax weight update of LibMTL / the FORUM repository
//     (not the projected one of the MoCo paper), no projection of the
//     trackers onto balls, and by default the loss-scaled normalization
//     h_s <- f_s h_s / (||h_s|| + 1e-8) of that code (Options::
//     moco_normalize_hypergradients);
//   - FORUM's momentum schedule is indexed by an "epoch" of
//     forum_epoch_length iterations (the reference code counts data
//     epochs); its gradients are normalized as in the code
//     (Options::forum_normalize_gradients); its QP is solved exactly by
//     enumerating active sets (at most 10 objectives; more are refused);
//   - SOBA uses benchopt's decreasing steps c / (t + 1)^decay on all three
//     variables (not the paper's theoretical exponents) and no clipping of v.
//
// Oracle accounting (Summary). Every iteration starts from an evaluation
// at the current iterate z_k = (x_k, y_k) (made at the end of the previous
// iteration, or at the start): the upper objectives f_s(z_k) and, because
// MtblEvaluator::Evaluate always computes h = grad_y g, grad_y g(z_k),
// which is reused as the inner loop's first gradient and as the stopping
// test's ||grad_y g||. MOML, MOCO and ITD_LS evaluate the objectives there
// WITHOUT gradients (upper_values) and their gradients at (x_k, y^T);
// FORUM and SOBA_LS evaluate them WITH gradients at z_k. Every Evaluate
// also counts one lower gradient. Per iteration, with T inner iterations,
// K = itd_truncation (or T when 0) and S objectives:
//   MOML, MOCO: upper_values 1, upper_gradients 1, lower_gradients T + 1,
//               hessian_products S K;
//   ITD_LS:     upper_values 1, upper_gradients 1, lower_gradients T + 1,
//               hessian_products K;
//   FORUM:      upper_gradients 1, lower_gradients T, lower_x_gradients 2,
//               hessian_products 0;
//   SOBA_LS:    upper_gradients 1, lower_gradients 1, hessian_products 1;
// plus the evaluation at the start point (upper_values 1 for MOML, MOCO,
// ITD_LS, upper_gradients 1 for FORUM and SOBA_LS; lower_gradients 1).
//
// Errors: nothing aborts or throws. Invalid options, weights outside the
// simplex, sizes that do not match, a lower level without GradX (FORUM),
// or an oracle failure at the start point end the run with FAILURE (*z
// unchanged); a failure or a non-finite value later ends it with
// NO_CONVERGENCE at the last iterate whose oracles were finite. The
// message names the cause.
//
// Thread safety: Solve uses the evaluator (stateful); run concurrent
// baselines on separate evaluators.

#ifndef ECMO_MTBL_BASELINES_H_
#define ECMO_MTBL_BASELINES_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/mtbl.h"
#include "ecmo/types.h"

namespace ecmo {

enum class MtblBaselineType { MOML, MOCO, FORUM, ITD_LS, SOBA_LS };

// "moml", "moco", "forum", "itd-ls", "soba-ls" (and back; false on an
// unknown name).
const char* MtblBaselineTypeToString(MtblBaselineType type);
bool StringToMtblBaselineType(const std::string& name, MtblBaselineType* type);

// Per-objective normalization of the hypergradients before MGDA's min-norm
// problem (MOML): NONE, L2 (h_s / ||h_s||), LOSS (h_s / f_s), LOSS_PLUS
// (h_s / (f_s ||h_s||)); the denominators get 1e-8 added.
enum class HypergradientNormalization { NONE, L2, LOSS, LOSS_PLUS };

class MtblBaseline {
 public:
  struct Options {
    MtblBaselineType type = MtblBaselineType::MOML;

    // STEP SIZES. The defaults are tuned on problems::BuildMtblLogistic at
    // n_y = 640 (mean cross-entropies of unit-scale features, L2 1e-3),
    // whose lower level is flat: the largest eigenvalue of grad^2_yy g is
    // about 0.03 at the start point, so inner_step_size = 10 is about
    // 0.3 / lambda_max. Gradient steps diverge above 2 / lambda_max: on
    // other data scale inner_step_size, forum_lower_step_size and
    // soba_lower_step_size with 1 / lambda_max(grad^2_yy g)
    // (EstimateLowerLevelSpectrum in ecmo/lower_level_solver.h estimates
    // it), and the upper steps with the scale of the hypergradients.

    // Outer iterations (one upper-level step each) and a wall-time budget.
    int max_iterations = 500;
    double max_solver_time_in_seconds = 1e9;
    // CONVERGENCE when the last upper-level direction (the min-norm
    // combination, MoCo's Y lambda, FORUM's whole d on (x, y) -- its x
    // block alone vanishes whenever the upper objectives do not depend on
    // x and the lower level is solved --, ITD's hypergradient, SOBA's
    // D_x; for SOBA also ||D_v||) has norm <=
    // direction_tolerance AND ||grad_y g|| <= lower_tolerance at the new
    // iterate.
    double direction_tolerance = 1e-8;
    double lower_tolerance = 1e-6;

    // Inner loop (MOML, MOCO, FORUM, ITD_LS): inner_iterations gradient
    // steps y <- y - inner_step_size grad_y g(x, y), started from the
    // current y (warm start).
    int inner_iterations = 10;
    double inner_step_size = 10.0;
    // ITD hypergradients back-propagate through the last itd_truncation
    // inner steps only (0: through all of them).
    int itd_truncation = 0;
    // Upper-level step x <- x - upper_step_size d.
    double upper_step_size = 10.0;

    // MOML: normalization before the min-norm problem (the step then uses
    // the normalized vectors, as LibMTL's MGDA does).
    HypergradientNormalization normalization = HypergradientNormalization::NONE;

    // MOCO: tracking step beta_k = moco_beta / k^moco_beta_sigma, weight
    // step gamma_k = moco_gamma / k^moco_gamma_sigma (k = 1, 2, ...), and
    // the regularization rho of the weight update.
    double moco_beta = 0.5;
    double moco_beta_sigma = 0.5;
    double moco_gamma = 0.1;
    double moco_gamma_sigma = 0.5;
    double moco_rho = 0.0;
    // MOCO: replace h_s by f_s h_s / (||h_s|| + 1e-8) before the tracking
    // update (LibMTL's and the FORUM repository's MoCo), with f_s at
    // (x_k, y^T).
    bool moco_normalize_hypergradients = true;

    // FORUM: rho of the QP, the step on y (the step on x is
    // upper_step_size), and the momentum on lambda, beta_e = 1 / (e +
    // 1)^(3/4) where the "epoch" e = k / forum_epoch_length for the k-th
    // iteration (k = 0, 1, ...; lambda-bar starts at 0, so it equals the
    // QP's lambda during the first epoch). The inner loop uses
    // inner_iterations and inner_step_size.
    double forum_rho = 0.1;
    double forum_lower_step_size = 1.0;
    int forum_epoch_length = 1;
    // FORUM: G_s <- G_s / (||G_s|| + 1e-8) before the QP, as the code does.
    bool forum_normalize_gradients = true;

    // SOBA_LS: steps rho_t = soba_lower_step_size / (t + 1)^soba_decay on
    // y and v, gamma_t = soba_upper_step_size / (t + 1)^soba_decay on x.
    double soba_lower_step_size = 10.0;
    double soba_upper_step_size = 10.0;
    double soba_decay = 0.5;

    // Record Summary::history every history_stride iterations (and at the
    // first and the last); 0 records nothing.
    int history_stride = 1;

    // Ranges, with Ceres-style messages.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // One line / a multi-line report in the shape of Solver::Summary's.
    std::string BriefReport() const;
    std::string FullReport() const;
    // CONVERGENCE or NO_CONVERGENCE with finite objectives.
    bool IsSolutionUsable() const;

    MtblBaselineType type = MtblBaselineType::MOML;
    // CONVERGENCE (tolerances above), NO_CONVERGENCE (iteration or time
    // budget; the point is the last iterate), FAILURE (bad input, or the
    // oracles failed at the start).
    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Solve (MTBL baseline) was not called.";
    int iterations = 0;

    // At the returned point: f_s, ||grad_y g||, the final combination
    // weights (MOML's min-norm lambda, MoCo's lambda, FORUM's momentum
    // lambda; the given weights for the LS methods) and the last
    // direction's norm.
    Eigen::VectorXd upper_objectives;
    double grad_y_g_norm = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd weights;
    double direction_norm = std::numeric_limits<double>::quiet_NaN();

    // Oracle calls (see the accounting at the top of this file):
    // upper_values = evaluations of all S objectives without gradients;
    // upper_gradients = evaluations of all S objectives with
    // their gradients at one point; lower_gradients = grad_y g (including
    // the one inside every MtblEvaluator::Evaluate);
    // lower_x_gradients = grad_x g (FORUM); hessian_products = calls of
    // LowerLevel::GradYJacobianTransposeProduct (H_yy v and H_xy v
    // together, the unit of the WC strategies' J_h^T v).
    int64_t upper_values = 0;
    int64_t upper_gradients = 0;
    int64_t lower_gradients = 0;
    int64_t lower_x_gradients = 0;
    int64_t hessian_products = 0;
    double total_time_in_seconds = 0.0;

    struct HistoryEntry {
      int iteration = 0;
      double time_in_seconds = 0.0;
      Eigen::VectorXd upper_objectives;
      double grad_y_g_norm = 0.0;
    };
    std::vector<HistoryEntry> history;
  };
};

// Runs the baseline from *z = (x, y) (packed as in MtblEvaluator) and
// writes the final point back into *z. `weights` are the linear-
// scalarization weights of ITD_LS and SOBA_LS (size S, non-negative, sum
// 1); the other methods ignore them (pass {}). The evaluator is not owned.
void Solve(const MtblBaseline::Options& options,
           MtblEvaluator* evaluator,
           const std::vector<double>& weights,
           Eigen::VectorXd* z,
           MtblBaseline::Summary* summary);

// MGDA's min-norm problem argmin_{lambda in simplex} lambda^T M lambda for a
// symmetric positive semi-definite Gram matrix M (S x S): exact, by
// enumerating supports (2^S small KKT solves) for S <= 12, projected
// gradient (step 1 / ||M||, sort-based simplex projection, at most 20000
// steps) beyond. Returns uniform weights for a zero matrix (or S = 0: an
// empty vector); when several minimizers exist (e.g. identical gradients)
// one of them.
Eigen::VectorXd MinNormWeights(const Eigen::MatrixXd& gram);

}  // namespace ecmo

#endif  // ECMO_MTBL_BASELINES_H_
