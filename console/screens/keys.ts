import { get, post } from "../api";
import { h, section, table, when } from "../dom";
import { changeButton, confirmDialog, lang, say, t } from "../ui";
import { rerender, type Screen } from "./screen";

interface Key {
  kid: string;
  alg: string;
  state: "next" | "signing" | "retiring";
  createdAt: number;
  activatesAt: number;
  retiresAt?: number;
  signsUntil?: number;
}

interface Rotation {
  mode: "staged" | "now";
  keys: { alg: string; kid: string; activatesAt: number }[];
  retired: string[];
  retiredUntil: number;
  warning?: string;
}

const KEYS = "/admin/api/v3/keys";

const stateText = (state: Key["state"]) => ({ next: t.keyNext, signing: t.keySigning, retiring: t.keyRetiring })[state];

/** Rotates after the operator confirmed what this kind of rotation does; says what it did. */
function rotation(now: boolean) {
  const label = now ? t.rotateNow : t.rotateStaged;
  return changeButton(
    label,
    async () => {
      if (!(await confirmDialog(now ? t.rotateNowQuestion : t.rotateStagedQuestion, label))) return;
      const done = await post<Rotation>(`${KEYS}/rotate`, { now });
      await rerender();
      const starts = done.keys.map((k) => `${k.alg} ${k.kid} (${when(k.activatesAt, lang)})`).join(", ");
      say(`${t.rotated} ${starts}. ${done.warning ?? ""}`.trim());
    },
    now ? { class: "danger" } : {},
  );
}

/** `#/keys`: the signing keys with their states, a staged rotation, and the emergency one. */
export const keysScreen: Screen = async () => {
  const { keys } = await get<{ keys: Key[] }>(KEYS);
  const rows = keys.map((key) => [
    h("code", {}, key.kid),
    key.alg,
    stateText(key.state),
    when(key.activatesAt, lang),
    when(key.signsUntil ?? key.retiresAt, lang),
  ]);
  return {
    title: t.keysTitle,
    body: [
      h("p", { class: "hint" }, t.keysHint),
      table(t.keysTitle, [t.keyId, t.keyAlg, t.keyState, t.keyActivates, t.keyRetires], rows),
      section(
        t.rotation,
        h("p", {}, t.rotateStagedHint),
        h("p", { class: "warning" }, t.rotateNowHint),
        h("div", { class: "actions" }, rotation(false), rotation(true)),
      ),
    ],
  };
};
