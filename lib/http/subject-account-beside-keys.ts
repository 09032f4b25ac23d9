import { services } from "../services";
import { type AlongKeys, besideKeysFor } from "./along-session";

/**
 * For routes whose first read is the account their path names: a cold container reads it
 * beside the signing keys. The route finds it with `readMadeFor(call.alongSession, sub)`.
 */
export const subjectAccountBesideKeys: AlongKeys = ({ subject }) =>
  subject === undefined ? undefined : besideKeysFor(subject, () => services().accounts.get(subject));
