#include "ecmo/wc_penalty.h"

namespace ecmo {

bool EvaluateWcPenalty(Evaluator* evaluator,
                       const Eigen::VectorXd& lambda,
                       const Eigen::VectorXd& offset,
                       double u,
                       double v,
                       double rho,
                       const Eigen::VectorXd& z,
                       const Eigen::VectorXd& delta,
                       double* value,
                       PenaltyGradient* gradient,
                       std::string* error) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(S), h(q);
  Eigen::MatrixXd grad_f;
  if (gradient != nullptr) grad_f.resize(k, S);
  if (!evaluator->Evaluate(z.data(), f.data(), h.data(),
                           gradient != nullptr ? grad_f.data() : nullptr,
                           error)) {
    return false;
  }
  if (offset.size() == S) f += offset;
  const Eigen::VectorXd r = (lambda.cwiseProduct(f) + delta).array() - rho;
  *value = rho + 0.5 * u * h.squaredNorm() + 0.5 * v * r.squaredNorm();
  if (gradient != nullptr) {
    gradient->rho = 1.0 - v * r.sum();
    gradient->z = grad_f * (v * r.cwiseProduct(lambda));
    if (q > 0) {
      Eigen::VectorXd jt(k);
      const Eigen::VectorXd uh = u * h;
      evaluator->JacobianTransposeMultiply(uh.data(), jt.data());
      gradient->z += jt;
    }
    gradient->delta = v * r;
  }
  return true;
}

}  // namespace ecmo
