import type { OperatorRole } from "../domain/operators/role";

/** Who is calling (interface §5.1): an application in system mode, or a user through an application. */
export type Principal =
  | {
      mode: "system";
      clientId: string;
      scopes: Set<string>;
      via: "bearer" | "basic";
      /** An operator in the admin console: a person's session acting with the service's authority. */
      operator?: Operator;
    }
  | { mode: "user"; clientId: string; sub: string; sid: string; uaId?: string; scopes: Set<string>; via: "bearer" }
  /**
   * The user in person, by their own login and password (HTTP Basic): every user
   * permission on their own account, and no application named by the credentials.
   */
  | { mode: "user"; clientId?: undefined; sub: string; scopes: Set<string>; via: "user-basic" };

/** An admin console operator: the role and sign-in time are read with every call (operatorAuthority). */
export interface Operator {
  sub: string;
  sid: string;
  uaId?: string;
  role?: OperatorRole;
  authTime?: number;
}
