import { ApiError, type FieldProblem } from "../errors";
import { describeViolation, type PolicyViolation } from "./policy";

function paramsOf(violation: PolicyViolation): Record<string, unknown> {
  return { ...violation };
}

export function violationProblem(violation: PolicyViolation, pos = "password"): FieldProblem {
  return {
    type: "input_error",
    error: "password_policy_violated",
    pos,
    desc: describeViolation(violation),
    params: paramsOf(violation),
  };
}

/**
 * interface §7.2: one violation is answered as it is (`pos` password, `params.rule`), several
 * are wrapped in wrong_values, and the directory's own refusal (id_store) is always a
 * top-level error without the wrap.
 */
export function passwordPolicyError(violations: PolicyViolation[], pos = "password"): ApiError {
  const directory = violations.find((v) => v.rule === "id_store");
  if (directory) {
    return new ApiError(400, "input_error", "password_policy_violated", describeViolation(directory), {
      params: paramsOf(directory),
      v2Code: "validation_error",
    });
  }
  if (violations.length === 1) {
    const [only] = violations;
    return new ApiError(400, "input_error", "password_policy_violated", describeViolation(only), {
      pos,
      params: paramsOf(only),
      v2Code: "validation_error",
    });
  }
  return new ApiError(400, "input_error", "wrong_values", "the password breaks the password policy", {
    errors: violations.map((v) => violationProblem(v, pos)),
    v2Code: "validation_error",
  });
}
