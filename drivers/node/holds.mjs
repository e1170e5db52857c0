// Held handlers (../PROTOCOL.md "Holding a handler"): `hold` arms a gate per (handle, kind), a
// kind being a runtime-to-SDK method or `tool NAME`; a handler reached under an armed gate
// reports as usual, then waits until `release` opens it, as an application awaiting something
// slow does. HOLD_GIVE_UP_MS bounds the wait should the release never come.
const HOLD_GIVE_UP_MS = 30000;
const gates = new Map();
const gateKeys = (args) => {
  const kind = typeof args.method === "string" ? args.method : `tool ${args.tool}`;
  return [args.session, args.client].filter((h) => typeof h === "string").map((h) => `${h}\u0000${kind}`);
};

export function hold(args) {
  for (const key of gateKeys(args)) {
    if (gates.has(key)) continue;
    let release;
    const promise = new Promise((r) => (release = r));
    gates.set(key, { promise, release });
  }
  return {};
}

export function release(args) {
  for (const key of gateKeys(args)) {
    gates.get(key)?.release();
    gates.delete(key);
  }
  return {};
}

// held waits while a gate is armed for the handle and kind (at once when none is). Given the
// AbortSignal through which the SDK tells the handler its call was resolved, told runs the
// moment it aborts, and the handler goes on waiting for its release, so that the SDK's dropping
// of the late answer is judged too.
export async function held(handle, kind, signal, told) {
  const gate = gates.get(`${handle}\u0000${kind}`);
  if (!gate) return;
  const onAbort = () => told?.();
  if (signal?.aborted) onAbort();
  else signal?.addEventListener?.("abort", onAbort, { once: true });
  let timer;
  await Promise.race([gate.promise, new Promise((r) => (timer = setTimeout(r, HOLD_GIVE_UP_MS)))]);
  clearTimeout(timer);
  signal?.removeEventListener?.("abort", onAbort);
}
