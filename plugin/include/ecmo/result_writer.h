// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Machine-readable results: a Solver::Summary as JSON (nlohmann::json) and
// as CSV rows with a header, in one schema shared by every tool.
//
// JSON point schema (keys always present):
//   problem, strategy, preference[], objective_offset[], termination,
//   message, iterations, objective_evaluations, gradient_evaluations,
//   wall_time_seconds, rho, z[], objectives[], constraint_norm,
//   kkt: { residual_sq, residual_sq_least_squares, average_residual_sq,
//          blocks: { simplex_sq, stationarity_sq, feasibility_sq,
//                    complementarity_sq } (solver multipliers),
//          blocks_least_squares: {...},
//          omega[], nu[], omega_least_squares[], nu_least_squares[] }
// Numbers that were never computed are -1 (Ceres' convention).

#ifndef ECMO_RESULT_WRITER_H_
#define ECMO_RESULT_WRITER_H_

#include <ostream>
#include <string>

#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace ecmo {

nlohmann::json SummaryToJson(const Solver::Summary& summary,
                             const std::string& problem_name);

// CSV: CsvHeader(S, k) once, then one CsvRow per point. Columns:
// problem,strategy,lambda_1..S,f_1..S,rho,constraint_norm,kkt_residual_sq,
// kkt_residual_sq_least_squares,average_kkt_residual_sq,termination,
// iterations,gradient_evaluations,wall_time_seconds,z_1..k
std::string CsvHeader(int num_objectives, int num_parameters);
std::string CsvRow(const Solver::Summary& summary,
                   const std::string& problem_name);

}  // namespace ecmo

#endif  // ECMO_RESULT_WRITER_H_
