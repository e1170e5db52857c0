#!/usr/bin/env node
// Conformance driver for the Node SDK (@github/copilot-sdk).
//
// Reads protocol commands (one JSON object per line) on stdin, drives the real SDK and writes
// responses and events (one JSON object per line) on stdout. See ../PROTOCOL.md.
// Diagnostics go to stderr only.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { applyFields, applyHandlers, hookInputs, surface } from "./surface.mjs";
import { makeHandlers } from "./handlers.mjs";
import { held, hold, release } from "./holds.mjs";

// ---------------------------------------------------------------------------------------------
// stdout guard: protocol lines go through `writeLine` only. Anything else that writes to stdout
// (the SDK, a dependency, a stray console.log) is redirected to stderr.
const stdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb);
console.log = console.error;
console.info = console.error;
console.debug = console.error;
console.warn = console.error;

// The harness controls the transport explicitly; this variable would switch the SDK's default.
delete process.env.COPILOT_SDK_DEFAULT_CONNECTION;

// Node runs JavaScript on one thread and one `write` call carries one whole line, so lines never
// interleave: the event loop is the "lock" around stdout writes.
function writeLine(obj, cb) {
  stdoutWrite(JSON.stringify(obj) + "\n", cb);
}

// surfaceCalled is what a surfaceHandlers callback of a session reports when called.
const surfaceCalled = (handle) => (name) => emit("surface.handler.called", { session: handle, handler: name });

function emit(event, args) {
  writeLine({ event, args });
}

const diag = (msg) => process.stderr.write(`[node-driver] ${msg}\n`);

// The SDK is imported after the guard above is in place.
const sdk = await import("@github/copilot-sdk");
const { CopilotClient, CopilotSession, RuntimeConnection, approveAll, defineTool } = sdk;

// ---------------------------------------------------------------------------------------------
// Installed SDK metadata, read at run time.

const SDK_PACKAGE = "@github/copilot-sdk";
const here = dirname(fileURLToPath(import.meta.url));

function findPackageRoot() {
  let dir = dirname(fileURLToPath(import.meta.resolve(SDK_PACKAGE)));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.name === SDK_PACKAGE) return { dir, pkg };
    } catch {
      // not a package root (or no package.json): keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${SDK_PACKAGE}`);
    dir = parent;
  }
}

const installed = findPackageRoot();
const sdkVersion = installed.pkg.version;
const handlers = makeHandlers({
  emit,
  held,
  sdk,
  sdkName: `${SDK_PACKAGE} ${sdkVersion}`,
  // What this version declares, read when a handler needs it (older releases lack some).
  clientOptionKeys: () => new Set(surfaceOf().filter((e) => e.owner === "clientOptions").map((e) => e.name)),
  sessionFsMembers: () => interfaceMembers("sessionFsProvider.d.ts", "SessionFsProvider"),
  sqliteMembers: () => interfaceMembers("sessionFsProvider.d.ts", "SessionFsSqliteProvider"),
  hookMembers: () => interfaceMembers("types.d.ts", "SessionHooks"),
  hookInputs: () => hookInputsOf(),
});

// Each hook's declared input (surface.mjs hookInputs), read once.
let hookInputsRead;
function hookInputsOf() {
  if (hookInputsRead === undefined) {
    try {
      hookInputsRead = hookInputs(installed.dir);
    } catch (e) {
      diag(`reading the hook input types failed: ${e?.message ?? e}`);
      hookInputsRead = {};
    }
  }
  return hookInputsRead;
}

// Where the installed SDK came from: CONFORMANCE_SDK_SOURCE when the harness's Prepare set it,
// else the dependency spec in the driver's own package.json (an exact npm version, or a file:
// path for --sdk-source).
function sdkSource() {
  if (process.env.CONFORMANCE_SDK_SOURCE) return process.env.CONFORMANCE_SDK_SOURCE;
  let spec;
  try {
    spec = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).dependencies?.[SDK_PACKAGE];
  } catch {
    spec = undefined;
  }
  if (typeof spec === "string" && spec.startsWith("file:")) {
    return `file:${resolve(here, spec.slice("file:".length))}`;
  }
  return `npm:${SDK_PACKAGE}@${sdkVersion}`;
}

// The installed SDK's declaration files, read once: they do not change during the driver's life,
// and hello (every scenario's) and every createSession read them (measured: re-reading and
// re-matching dist/types.d.ts per command was 6.6 s of the driver's 14 s of CPU in a whole run).
const distFiles = new Map();
function readDist(file) {
  if (!distFiles.has(file)) {
    let text = null;
    try {
      text = readFileSync(join(installed.dir, "dist", file), "utf8");
    } catch (e) {
      text = e;
    }
    distFiles.set(file, text);
  }
  const text = distFiles.get(file);
  if (text instanceof Error) throw text;
  return text;
}

function readTypes() {
  try {
    return readDist("types.d.ts");
  } catch {
    return "";
  }
}

// The member of ToolInvocation through which the SDK tells a tool handler that its call was
// resolved: the one dist/types.d.ts declares an AbortSignal ("" when none; PROTOCOL.md "Holding
// a handler", capability handler.cancel.tool).
let toolCancelWayRead;
function toolCancelWay() {
  if (toolCancelWayRead === undefined) {
    const m = /export interface ToolInvocation\b[^{]*\{([\s\S]*?)\n\}/.exec(readTypes());
    toolCancelWayRead = (m && /^\s{4}(\w+)\??:\s*AbortSignal\b/m.exec(m[1])?.[1]) || "";
  }
  return toolCancelWayRead;
}

// The AbortSignal member, if any, of what each request event's handler receives (dist/types.d.ts):
// the permission handler's invocation argument, ElicitationContext, CommandContext (PROTOCOL.md
// "Holding a handler", capability handler.cancel.<kind>). The driver holds no request handler
// yet, so a member found is a driver gap, not a capability.
const REQUEST_WAYS = {
  permission: [/export type PermissionHandler = \([^)]*?invocation:\s*\{([\s\S]*?)\}\)/, "PermissionHandler.signal", "the permission handler's invocation argument"],
  elicitation: [/export interface ElicitationContext\b[^{]*\{([\s\S]*?)\n\}/, "ElicitationContext.signal", "ElicitationContext"],
  command: [/export interface CommandContext\b[^{]*\{([\s\S]*?)\n\}/, "CommandContext.signal", "CommandContext"],
};
function requestCancelWay(kind) {
  const m = REQUEST_WAYS[kind][0].exec(readTypes());
  return (m && /^\s*(\w+)\??:\s*AbortSignal\b/m.exec(m[1])?.[1]) || "";
}
function requestCapabilities(v, caps, notes, missing) {
  for (const [kind, [, symbol, what]] of Object.entries(REQUEST_WAYS)) {
    const c = `handler.cancel.${kind}`, way = requestCancelWay(kind);
    if (caps) caps[c] = false;
    if (notes) notes[c] = way
      ? `${what}.${way} (AbortSignal): the driver does not watch it yet`
      : `${v}: ${what} declares no AbortSignal member: the ${kind} handler cannot learn that the runtime resolved its request`;
    if (missing) missing[c] = way ? `driver: the held ${kind} handler does not watch ${what}.${way} yet` : symbol;
  }
}

// Options declared on the public Tool interface of the installed version (dist/types.d.ts).
function declaredToolOptions() {
  try {
    const dts = readDist("types.d.ts");
    const m = /export interface Tool<[^>]*>\s*\{([\s\S]*?)\n\}/.exec(dts);
    if (!m) return new Set();
    return new Set([...m[1].matchAll(/^\s{4}(\w+)\??:/gm)].map((x) => x[1]));
  } catch {
    return new Set();
  }
}

// Session options: the protocol's SDK-neutral name -> how this SDK's config object spells it.
// Values are passed through as given; handler options install a handler that answers nothing.
// `resume` marks options only ResumeSessionConfig has. See ../PROTOCOL.md "Session options".
const noAnswer = async () => ({});
const SESSION_OPTIONS = {
  model: { key: "model" },
  reasoningEffort: { key: "reasoningEffort" },
  systemMessage: { key: "systemMessage" },
  availableTools: { key: "availableTools" },
  excludedTools: { key: "excludedTools" },
  streaming: { key: "streaming" },
  includeSubAgentStreamingEvents: { key: "includeSubAgentStreamingEvents" },
  workingDirectory: { key: "workingDirectory" },
  customAgents: { key: "customAgents" },
  mcpServers: { key: "mcpServers" },
  configDiscovery: { key: "enableConfigDiscovery" },
  skillDirectories: { key: "skillDirectories" },
  disabledSkills: { key: "disabledSkills" },
  infiniteSessions: { key: "infiniteSessions" },
  provider: { key: "provider" },
  // Answers the first choice, or "ok" as free text when there are none (PROTOCOL.md).
  userInputHandler: {
    key: "onUserInputRequest",
    handler: () => async (request) =>
      request?.choices?.length ? { answer: request.choices[0], wasFreeform: false } : { answer: "ok", wasFreeform: true },
  },
  elicitationHandler: { key: "onElicitationRequest", handler: () => async () => ({ action: "cancel" }) },
  // A hook with no output: undefined, as Go's nil and Python's None.
  hooks: { key: "hooks", handler: () => ({ onPreToolUse: async () => undefined }) },
  continuePendingWork: { key: "continuePendingWork", resume: true },
  // 1.0.0-beta.4 spells it disableResume (the wire key) on ResumeSessionConfig.
  suppressResumeEvent: { key: "suppressResumeEvent", resume: true, formerly: "disableResume" },
};

// The key this version declares for an option: its name, or the name an older release gave it.
function optionKey(m, declared) {
  return !declared.has(m.key) && m.formerly && declared.has(m.formerly) ? m.formerly : m.key;
}

// The members an interface of the installed version's .d.ts declares (empty when it has none).
function interfaceMembers(file, name) {
  try {
    const dts = readDist(file);
    const m = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(dts);
    return new Set(m ? [...m[1].matchAll(/^\s{4}(\w+)\??[:(]/gm)].map((x) => x[1]) : []);
  } catch (e) {
    diag(`reading ${file} failed: ${e?.message ?? e}`);
    return new Set();
  }
}

// Keys declared on the public session config interfaces of the installed version (computed once;
// callers only read the sets).
let sessionKeysRead;
function declaredSessionKeys() {
  return (sessionKeysRead ??= readSessionKeys());
}
function readSessionKeys() {
  const keys = { create: new Set(), resume: new Set() };
  try {
    const dts = readDist("types.d.ts");
    const body = (name) => {
      const m = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(dts);
      return m ? [...m[1].matchAll(/^\s{4}(\w+)\??:/gm)].map((x) => x[1]) : [];
    };
    // 1.0.x splits the shared keys into SessionConfigBase; older versions repeat them.
    const base = body("SessionConfigBase");
    for (const k of [...base, ...body("SessionConfig")]) keys.create.add(k);
    for (const k of [...base, ...body("ResumeSessionConfig")]) keys.resume.add(k);
    // The compiler's view (surface.mjs) also resolves type aliases the regex cannot read:
    // 1.0.0-beta.4 declares `type ResumeSessionConfig = Pick<SessionConfig, …> & {…}`.
    for (const e of surfaceOf()) {
      if (e.owner === "sessionConfig") keys.create.add(e.name);
      if (e.owner === "resumeConfig") keys.resume.add(e.name);
    }
  } catch (e) {
    diag(`reading the session config types failed: ${e?.message ?? e}`);
  }
  return keys;
}

function applyOptions(config, options, kind) {
  const declared = declaredSessionKeys()[kind];
  for (const [name, value] of Object.entries(options ?? {})) {
    const m = Object.hasOwn(SESSION_OPTIONS, name) ? SESSION_OPTIONS[name] : undefined;
    if (!m) throw new Unsupported(`the node driver does not know the session option "${name}"`);
    const key = optionKey(m, declared);
    if (!declared.has(key)) {
      throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion}: ${kind === "resume" ? "ResumeSessionConfig" : "SessionConfig"} has no ${m.key} (session option ${name})`);
    }
    if (m.handler) {
      if (value !== true) throw new DriverError(`session option ${name} takes true (install a handler)`);
      config[key] = m.handler();
    } else {
      config[key] = value;
    }
  }
}

// Options declared on the public SessionConfigBase interface of the installed version.
function declaredSessionOptions() {
  try {
    const dts = readDist("types.d.ts");
    const m = /export interface SessionConfigBase\b[^{]*\{([\s\S]*?)\n\}/.exec(dts);
    if (!m) return new Set();
    return new Set([...m[1].matchAll(/^\s{4}(\w+)\??:/gm)].map((x) => x[1]));
  } catch {
    return new Set();
  }
}

// What the installed SDK can do: a function of its files and exports alone, so computed once
// (hello is every scenario's first command).
let capabilitiesRead, missingRead;
function capabilities() {
  return (capabilitiesRead ??= readCapabilities());
}
function readCapabilities() {
  const toolOptions = declaredToolOptions();
  const sessionOptions = declaredSessionOptions();
  let rpcClearContext = false;
  let rpcToolsSet = false;
  try {
    // The generated session RPC client is built lazily from (connection, sessionId) without any
    // traffic; a probe instance tells whether this version generated history.clearContext.
    const probe = new CopilotSession("capability-probe", null);
    rpcClearContext = typeof probe.rpc?.history?.clearContext === "function";
    rpcToolsSet = typeof probe.rpc?.tools?.set === "function";
  } catch (e) {
    diag(`clearContext probe failed: ${e?.message ?? e}`);
  }
  const hasSetTools = typeof CopilotSession.prototype.setTools === "function";
  const caps = {
    "transport.tcp": typeof RuntimeConnection?.forUri === "function" || legacyClientOption("cliUrl"),
    "transport.stdio":
      typeof RuntimeConnection?.forStdio === "function" || (legacyClientOption("cliPath") && legacyClientOption("useStdio")),
    "session.resume": typeof CopilotClient.prototype.resumeSession === "function",
    "tool.isTerminal": toolOptions.has("isTerminal"),
    "tool.isTerminal.explicitFalse": toolOptions.has("isTerminal"),
    "tool.overridesBuiltInTool": toolOptions.has("overridesBuiltInTool"),
    "tool.skipPermission": toolOptions.has("skipPermission"),
    "tool.defer": toolOptions.has("defer"),
    "tool.metadata": toolOptions.has("metadata"),
    "session.setTools": hasSetTools,
    "session.clearContext": rpcClearContext,
    "session.rpc.tools.set": rpcToolsSet,
    "session.gitHubToken": sessionOptions.has("gitHubToken") || declaredSessionKeys().create.has("gitHubToken"),
    events: true,
    // Tool results (PROTOCOL.md "Tool results"): an object is JSON-stringified, a
    // ToolResultObject is passed through, a thrown Error becomes the answer's error.
    "tool.result.value": true,
    "tool.result.object": true,
    "tool.result.binary": true,
    "tool.result.sessionLog": true,
    "tool.result.telemetry": true,
    "tool.handler.waitFor": true,
    "handler.hold": true, // holds.mjs
    "handler.cancel.tool": toolCancelWay() !== "", // makeHandler: ToolInvocation's AbortSignal
    // Only sendAndWait has a way to be bounded (its timeout argument); NO_SIGNAL names why the
    // other calls have none and missingSymbols the member whose absence makes it so.
    ...Object.fromEntries(Object.keys(NO_SIGNAL).map((c) => [c, false])),
    "call.cancel.sendAndWait": true,
    // errObject: the thrown ResponseError's own code and data fields.
    "error.rpc.code": true,
    // TypeScript's generated types are erased at run time: a value is a plain object, with no
    // converter of the SDK's to call (PROTOCOL.md, Converters).
    "convert.roundtrip": false,
    // ToolBinaryResult's declared type has no metadata, but the SDK forwards the object it is
    // given as is, which is what a JavaScript application relies on.
    "tool.result.binary.metadata": true,
    "handler.permission": true,
    surface: true,
    "surface.handlers": true,
    "surface.handlers.called": true, // applyHandlers' callbacks report each call (surfaceCalled)
    "surface.callbacks": true, // surface.mjs withCallbacks
    "driver.concurrent": true, // the read loop does not await a command (below)
    "rpc.generated": rpcWrappers().session.size + rpcWrappers().server.size > 0,
    // handlers accepted; a method this version has no public handler API for is named in
    // connect's / createSession's "unhandled".
    "rpc.handlers": true,
    // connect's requestHandler: a CopilotRequestHandler subclass (handlers.mjs forRequests)
    "rpc.requestHandler": typeof sdk.CopilotRequestHandler === "function",
    "handler.hooks": declaredSessionKeys().create.has("hooks"),
    // createSession's hookInputs: each hook's input type read from dist/types.d.ts
    "handler.hooks.inputs": declaredSessionKeys().create.has("hooks") && Object.keys(hookInputsOf()).length > 0,
    "connect.option.connectionToken": typeof RuntimeConnection?.forUri === "function",
    "connect.option.clientInfo": /clientInfo\?:/.test(readTypes()),
    "connect.option.gitHubTelemetry": /onGitHubTelemetry\?:/.test(readTypes()),
  };
  const v = `${SDK_PACKAGE} ${sdkVersion}`;
  const notes = {};
  const sessionKeys = declaredSessionKeys();
  for (const [name, m] of Object.entries(SESSION_OPTIONS)) {
    const onCreate = sessionKeys.create.has(optionKey(m, sessionKeys.create));
    const onResume = sessionKeys.resume.has(optionKey(m, sessionKeys.resume));
    caps[`session.option.${name}`] = m.resume ? onResume : onCreate && onResume;
    if (!caps[`session.option.${name}`]) {
      notes[`session.option.${name}`] = `${v}: ${onCreate ? "ResumeSessionConfig" : "SessionConfig"} has no ${m.key}`;
    }
  }
  for (const [c, [, why]] of Object.entries(NO_SIGNAL)) notes[c] = `${v}: ${why}`;
  notes["call.cancel.sendAndWait"] = "sendAndWait(options, timeout): the SDK's own timeout, the only bound any call takes";
  if (!hasSetTools) {
    notes["session.setTools"] =
      `${v} has no CopilotSession.setTools; only the generated session.rpc.tools.set exists, ` +
      `which changes the runtime's tool list but not the SDK's handlers`;
  }
  if (caps["tool.isTerminal"]) {
    notes["tool.isTerminal.explicitFalse"] =
      `Tool.isTerminal is an optional property: left out when not set, false is passed as false`;
  }
  for (const opt of ["isTerminal", "overridesBuiltInTool", "skipPermission", "defer", "metadata"]) {
    if (!caps[`tool.${opt}`]) notes[`tool.${opt}`] = `${v}: the Tool interface has no ${opt} option`;
  }
  if (!rpcClearContext) {
    notes["session.clearContext"] = `${v} has no session.rpc.history.clearContext`;
  }
  notes["handler.cancel.tool"] = toolCancelWay()
    ? `ToolInvocation.${toolCancelWay()} (AbortSignal): aborted when the runtime completes the call or the session disconnects`
    : `${v}: ToolInvocation declares no AbortSignal member: a tool handler cannot learn that the runtime resolved its call`;
  notes["convert.roundtrip"] = `${v}: the generated types (dist/generated/rpc.d.ts) are TypeScript interfaces, erased at run time: an application's value is a plain object, converted by JSON.stringify / JSON.parse, not by a converter of the SDK's`;
  requestCapabilities(v, caps, notes, null);
  notes.events = "subscribed through SessionConfig.onEvent (session.on registered before session.create/resume)";
  return { caps, notes };
}

// The declaration whose absence from the SDK's .d.ts makes each capability false ("Name.member"
// or an exported "Name"), PROTOCOL.md "Capability audit": the harness checks each is absent.
function missingSymbols(caps) {
  const symbols = {
    "transport.tcp": "RuntimeConnection.forUri",
    "transport.stdio": "RuntimeConnection.forStdio",
    "session.resume": "CopilotClient.resumeSession",
    "tool.isTerminal": "Tool.isTerminal",
    "tool.overridesBuiltInTool": "Tool.overridesBuiltInTool",
    "tool.skipPermission": "Tool.skipPermission",
    "tool.defer": "Tool.defer",
    "tool.metadata": "Tool.metadata",
    "session.setTools": "CopilotSession.setTools",
    "session.clearContext": "HistoryClearContextRequest",
    "session.rpc.tools.set": "ToolsSetRequest",
    "session.gitHubToken": "SessionConfigBase.gitHubToken",
    "connect.option.connectionToken": "RuntimeConnection.forUri",
    "connect.option.clientInfo": "CopilotClientOptions.clientInfo",
    "connect.option.gitHubTelemetry": "CopilotClientOptions.onGitHubTelemetry",
    "handler.hooks": "SessionConfigBase.hooks",
    "handler.hooks.inputs": "SessionHooks",
    "rpc.requestHandler": "CopilotRequestHandler",
    "handler.cancel.tool": "ToolInvocation.signal",
    ...Object.fromEntries(Object.entries(NO_SIGNAL).map(([c, [sym]]) => [c, sym])),
  };
  requestCapabilities("", null, null, symbols);
  const keys = declaredSessionKeys();
  for (const [name, m] of Object.entries(SESSION_OPTIONS)) {
    const where = m.resume || !keys.resume.has(m.key) ? "ResumeSessionConfig" : "SessionConfig";
    symbols[`session.option.${name}`] = `${where}.${m.key}`;
  }
  return Object.fromEntries(Object.entries(symbols).filter(([c]) => !caps[c]));
}

// ---------------------------------------------------------------------------------------------
// The generated RPC layer (PROTOCOL.md "Generated RPC layer"). Which wrapper sends which schema
// method is found out from the installed SDK, not listed: the public typed getters
// (CopilotClient.rpc, CopilotSession.rpc) are built over a connection that only records the
// method each wrapper sends, and every function in the tree is called once.

let rpcIndex = null; // { server: Map(method -> path), session: Map(method -> path) }

function indexWrappers() {
  const out = new Map();
  const recorder = { sent: null };
  const walk = (obj, path) => {
    for (const [k, v] of Object.entries(obj ?? {})) {
      if (typeof v === "function") {
        recorder.sent = null;
        try {
          const p = v({});
          p?.catch?.(() => {});
        } catch {
          // a wrapper that checks its params before sending: not indexed by the probe
        }
        if (recorder.sent) out.set(recorder.sent, [...path, k]);
      } else if (v && typeof v === "object") {
        walk(v, [...path, k]);
      }
    }
  };
  return { out, recorder, walk };
}

function rpcWrappers() {
  if (rpcIndex) return rpcIndex;
  const build = (makeRoot) => {
    const { out, recorder, walk } = indexWrappers();
    const conn = {
      sendRequest: (method) => {
        recorder.sent = method;
        return Promise.resolve(undefined);
      },
      sendNotification: (method) => {
        recorder.sent = method;
      },
    };
    try {
      walk(makeRoot(conn), []);
    } catch (e) {
      diag(`indexing the generated RPC layer failed: ${e?.message ?? e}`);
    }
    return out;
  };
  const clientRpc = Object.getOwnPropertyDescriptor(CopilotClient.prototype, "rpc")?.get;
  rpcIndex = {
    server: clientRpc ? build((conn) => clientRpc.call({ connection: conn, _rpc: null })) : new Map(),
    session: build((conn) => new CopilotSession("rpc-index-probe", conn).rpc),
  };
  return rpcIndex;
}

async function rpcCall(call) {
  const method = need(call, "method");
  const params = call.params ?? undefined;
  let root;
  let index;
  if (typeof call.session === "string") {
    root = sessionOf(call).rpc;
    index = rpcWrappers().session;
  } else if (typeof call.client === "string") {
    root = clientOf(call).rpc;
    index = rpcWrappers().server;
  } else {
    throw new DriverError('rpc needs "client" or "session"');
  }
  const path = index.get(method);
  if (!path) throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion}: ${method} is not in this SDK's generated layer`);
  let fn = root;
  let self = root;
  for (const k of path) {
    self = fn;
    fn = fn?.[k];
  }
  // The params object is passed as the application would write it (Node's request type is the
  // object itself, so nothing is unrepresentable).
  const result = await fn.call(self, params);
  return { result: result === undefined ? null : result };
}

// ---------------------------------------------------------------------------------------------
// Handles.

const clients = new Map(); // handle -> CopilotClient
const sessions = new Map(); // handle -> { session, client }

class DriverError extends Error {
  constructor(message) {
    super(message);
    this.name = "DriverError";
  }
}

class Unsupported extends Error {}

// The application cancels a call (PROTOCOL.md "The application cancels a call"). No call of the
// SDK takes an AbortSignal; the one way to bound a call is sendAndWait's own timeout argument,
// which rejects with a plain Error (dist/session.js sendAndWait: `Timeout after ${ms}ms waiting
// for session.idle`, no type of its own), recognised here by that text.
const SEND_AND_WAIT_TIMEOUT = /^Timeout after \d+ms waiting for session\.idle$/;
const NO_SIGNAL = {
  "call.cancel.createSession": ["SessionConfigBase.signal", "CopilotClient.createSession(config) takes no AbortSignal and SessionConfig has no signal or timeout"],
  "call.cancel.resumeSession": ["ResumeSessionConfig.signal", "CopilotClient.resumeSession(sessionId, config) takes no AbortSignal and ResumeSessionConfig has no signal or timeout"],
  "call.cancel.send": ["MessageOptions.signal", "CopilotSession.send(options) takes no AbortSignal and MessageOptions has no signal or timeout"],
  "call.cancel.rpc": ["createSessionRpc.signal", "the generated wrappers (createServerRpc, createSessionRpc) take only their params and call connection.sendRequest(method, params) without a CancellationToken (dist/generated/rpc.js)"],
};

// Cancelled is an SDK call that ended with the cancellation the application asked for: answered
// with "cancelled": true beside the SDK error's type and message, and afterCancelMs, how long the
// call took to end after the timeout was due (this process's clock).
class Cancelled extends Error {
  constructor(cause, afterCancelMs = 0) {
    super(errMessage(cause));
    this.cause = cause;
    this.afterCancelMs = afterCancelMs;
  }
}

function need(args, key, type = "string") {
  const v = args?.[key];
  if (type === "array" ? !Array.isArray(v) : typeof v !== type) {
    throw new DriverError(`argument "${key}" must be ${type === "array" ? "an array" : `a ${type}`}`);
  }
  return v;
}

function clientOf(args) {
  const h = need(args, "client");
  const c = clients.get(h);
  if (!c) throw new DriverError(`unknown client handle "${h}"`);
  return c;
}

function sessionOf(args) {
  const h = need(args, "session");
  const s = sessions.get(h);
  if (!s) throw new DriverError(`unknown session handle "${h}"`);
  return s.session;
}

// ---------------------------------------------------------------------------------------------
// Tools.

const TOOL_OPTIONS = ["description", "parameters", "overridesBuiltInTool", "skipPermission", "defer", "metadata", "isTerminal"];

// Handlers that have returned, per session and tool, for handlers that wait for another tool's
// (PROTOCOL.md "Tool", waitFor): a promise per (session, tool), settled when its handler returns.
const returned = new Map();
function returnedGate(sessionHandle, tool) {
  const key = `${sessionHandle}\u0000${tool}`;
  if (!returned.has(key)) {
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    returned.set(key, { promise, resolve });
  }
  return returned.get(key);
}

// WAIT_GIVE_UP_MS bounds a waitFor handler's wait, so that an SDK that serves one call at a
// time gets an answer (the harness reads the order of the answers, never this time).
const WAIT_GIVE_UP_MS = 5000;

// `ref.session` is the SDK session the tools belong to; it is set once create/resume returns.
function makeHandler(spec, sessionHandle, ref) {
  const h = spec.handler ?? {};
  const run = makeAction(spec, sessionHandle, ref);
  return async (args, invocation) => {
    try {
      if (typeof h.waitFor === "string") {
        let timer;
        const gaveUp = new Promise((r) => (timer = setTimeout(() => r(true), WAIT_GIVE_UP_MS)));
        const done = await Promise.race([returnedGate(sessionHandle, h.waitFor).promise.then(() => false), gaveUp]);
        clearTimeout(timer);
        if (done) return `gave up waiting for the tool ${h.waitFor}`;
      }
      const out = await run(args);
      const way = toolCancelWay();
      const reached = Date.now();
      await held(sessionHandle, `tool ${spec.name}`, way ? invocation?.[way] : undefined, () =>
        emit("tool.cancelled", {
          session: sessionHandle,
          tool: spec.name,
          way: `ToolInvocation.${way} (AbortSignal) aborted`,
          afterMs: Date.now() - reached,
        }),
      );
      return out;
    } finally {
      returnedGate(sessionHandle, spec.name).resolve();
    }
  };
}

function makeAction(spec, sessionHandle, ref) {
  const h = spec.handler ?? {};
  return async (args) => {
    const invoked = { session: sessionHandle, tool: spec.name };
    if (h.label !== undefined) invoked.label = h.label;
    invoked.arguments = args === undefined ? null : args;
    emit("tool.invoked", invoked);
    switch (h.action) {
      case "return":
        return h.text ?? "";
      case "fail":
        throw new Error(h.message ?? "");
      case "returnValue": {
        // The record as a JavaScript application holds it: a plain object with a Date.
        const v = h.value ?? {};
        return { id: v.id, at: new Date(v.at), status: v.status, count: v.count, tags: v.tags };
      }
      case "returnResult":
        // The SDK's ToolResultObject, as given (textResultForLlm, resultType, error, sessionLog,
        // toolTelemetry, binaryResultsForLlm).
        return h.result;
      case "clearContext": {
        let cleared;
        try {
          if (!ref.session) throw new DriverError("tool handler ran before the session was returned by the SDK");
          const r = await ref.session.rpc.history.clearContext({ prompt: h.prompt });
          cleared = r?.messagesCleared;
        } catch (e) {
          emit("tool.clearContext", { session: sessionHandle, tool: spec.name, error: errMessage(e) });
          throw e;
        }
        const ev = { session: sessionHandle, tool: spec.name };
        if (cleared !== undefined) ev.messagesCleared = cleared;
        emit("tool.clearContext", ev);
        return (h.text ?? "").replaceAll("{messagesCleared}", String(cleared));
      }
      default:
        throw new DriverError(`unknown handler action ${JSON.stringify(h.action)}`);
    }
  };
}

function buildTools(specs, sessionHandle, ref) {
  return specs.map((spec) => {
    if (typeof spec?.name !== "string") throw new DriverError("tool without a name");
    // Only the keys present in the spec are set: an absent key is an option the application did
    // not set. A plain object has no builder, so optionOrder only decides the insertion order.
    const config = {};
    const order = [...(spec.optionOrder ?? []), ...TOOL_OPTIONS].filter((k, i, a) => a.indexOf(k) === i);
    for (const key of order) {
      if (Object.hasOwn(spec, key)) config[key] = spec[key];
    }
    config.handler = makeHandler(spec, sessionHandle, ref);
    return defineTool(spec.name, config);
  });
}

// The application's permission handler: approve everything (the SDK's approveAll), reporting
// the request exactly as the handler received it (PROTOCOL.md "Requests from the runtime").
function permissionHandler(sessionHandle) {
  return (request, invocation) => {
    emit("permission.requested", { session: sessionHandle, request: request ?? null });
    return approveAll(request, invocation);
  };
}

function forwardEvents(sessionHandle) {
  return (event) => {
    emit("session.event", { session: sessionHandle, type: event?.type, data: event?.data ?? null });
  };
}

// ---------------------------------------------------------------------------------------------
// Commands.

// The installed SDK's declared surface (PROTOCOL.md "Surface"). Type-checking the .d.ts takes
// seconds, so --self-check (the harness's Prepare, once per SDK version) writes it beside the
// driver and a run reads it; without that file it is computed on first use.
const SURFACE_CACHE = join(here, "surface.json");
let surfaceEntries;
// Releases without RuntimeConnection (1.0.0-beta.4) take the runtime in CopilotClientOptions
// itself: cliUrl (TCP), cliPath + useStdio (stdio), as their .d.ts declares (read by surfaceOf).
function legacyClientOption(name) {
  return !RuntimeConnection && surfaceOf().some((e) => e.owner === "clientOptions" && e.name === name);
}

function surfaceOf() {
  if (!surfaceEntries) {
    try {
      const cached = JSON.parse(readFileSync(SURFACE_CACHE, "utf8"));
      if (cached.sdkVersion === sdkVersion && cached.sdkDir === installed.dir) surfaceEntries = cached.entries;
    } catch {
      // no cache: compute below
    }
  }
  surfaceEntries ??= surface(installed.dir);
  return surfaceEntries;
}

const commands = {
  async hold(args) {
    return hold(args);
  },

  async release(args) {
    return release(args);
  },

  async surface() {
    return { entries: surfaceOf() };
  },

  async hello() {
    const { caps, notes } = capabilities();
    missingRead ??= missingSymbols(caps);
    return {
      protocolVersion: 1, sdk: "node", version: sdkVersion, source: sdkSource(), capabilities: caps, notes,
      missing: missingRead,
    };
  },

  async connect(args) {
    const handle = need(args, "client");
    if (clients.has(handle)) throw new DriverError(`client handle "${handle}" already in use`);
    // Connect options (PROTOCOL.md "Connect options"): set only what was given.
    const opts = args.options ?? {};
    for (const k of Object.keys(opts)) {
      if (!["connectionToken", "clientInfo", "gitHubTelemetry"].includes(k)) {
        throw new Unsupported(`the node driver does not know the connect option "${k}"`);
      }
    }
    const clientOptions = {};
    if (Object.hasOwn(opts, "clientInfo")) clientOptions.clientInfo = opts.clientInfo;
    if (opts.gitHubTelemetry === true) clientOptions.onGitHubTelemetry = () => {};
    let connection;
    if (!RuntimeConnection && typeof args.address === "string") {
      if (Object.hasOwn(opts, "connectionToken")) {
        throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion}: CopilotClientOptions has cliUrl but no connection token`);
      }
      clientOptions.cliUrl = args.address;
    } else if (!RuntimeConnection && typeof args.cliPath === "string") {
      clientOptions.cliPath = args.cliPath;
      clientOptions.useStdio = true;
      clientOptions.env = { ...process.env, ...(args.env ?? {}) };
    } else if (typeof args.address === "string") {
      connection = Object.hasOwn(opts, "connectionToken")
        ? RuntimeConnection.forUri(args.address, { connectionToken: opts.connectionToken })
        : RuntimeConnection.forUri(args.address);
    } else if (typeof args.cliPath === "string") {
      // forStdio's env replaces the inherited environment; the protocol adds `env` to it. When
      // the application sets the client's own env (a surface field) and the protocol adds
      // nothing, the connection carries none: the SDK applies the application's (1.0.14 refuses
      // both at once, and a connection env would take precedence over it).
      const env = { ...process.env, ...(args.env ?? {}) };
      delete env.COPILOT_SDK_DEFAULT_CONNECTION;
      const appEnv = args.env === undefined && Object.hasOwn(args.fields ?? {}, "env");
      connection = appEnv ? RuntimeConnection.forStdio({ path: args.cliPath }) : RuntimeConnection.forStdio({ path: args.cliPath, env });
    } else {
      throw new DriverError('connect needs "address" or "cliPath"');
    }
    applyFields(clientOptions, args.fields, "clientOptions", args.fields ? surfaceOf() : [], Unsupported, `${SDK_PACKAGE} ${sdkVersion}`);
    if (clientOptions.isChildProcess === true) {
      // Older releases: the SDK then speaks JSON-RPC on this process's own stdin/stdout, which
      // carry the driver protocol (the SDK's ping would wait forever for an answer there).
      throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion}: isChildProcess makes the SDK use the driver's own stdin/stdout, which carry the driver protocol`);
    }
    const account = handlers.forClient(clientOptions, args.handlers, handle);
    const served = args.requestHandler ? handlers.forRequests(clientOptions, args.requestHandler, handle) : null;
    const client = new CopilotClient(connection ? { connection, ...clientOptions } : clientOptions);
    await client.start();
    clients.set(handle, client);
    return served ?? (args.handlers ? account : {});
  },

  async createSession(args) {
    const client = clientOf(args);
    const handle = need(args, "session");
    const ref = { session: null };
    const tools = buildTools(need(args, "tools", "array"), handle, ref);
    const config = { onPermissionRequest: permissionHandler(handle), tools, onEvent: forwardEvents(handle) };
    applyOptions(config, args.options, "create");
    applyFields(config, args.fields, "sessionConfig", args.fields ? surfaceOf() : [], Unsupported, `${SDK_PACKAGE} ${sdkVersion}`);
    const kept = applyHandlers(config, args.surfaceHandlers, "sessionConfig", args.surfaceHandlers ? surfaceOf() : [], Unsupported, `${SDK_PACKAGE} ${sdkVersion}`, surfaceCalled(handle));
    if (args.gitHubToken !== undefined) config.gitHubToken = args.gitHubToken;
    const account = handlers.forSession(config, args.handlers, handle, declaredSessionKeys().create);
    const session = await client.createSession(config);
    ref.session = session;
    sessions.set(handle, { session, client });
    return { sessionId: session.sessionId, ...(args.handlers ? account : {}), ...(kept.length ? { kept } : {}) };
  },

  async resumeSession(args) {
    const client = clientOf(args);
    const handle = need(args, "session");
    const sessionId = need(args, "sessionId");
    const ref = { session: null };
    const tools = buildTools(need(args, "tools", "array"), handle, ref);
    const config = { onPermissionRequest: permissionHandler(handle), tools, onEvent: forwardEvents(handle) };
    applyOptions(config, args.options, "resume");
    applyFields(config, args.fields, "resumeConfig", args.fields ? surfaceOf() : [], Unsupported, `${SDK_PACKAGE} ${sdkVersion}`);
    const kept = applyHandlers(config, args.surfaceHandlers, "resumeConfig", args.surfaceHandlers ? surfaceOf() : [], Unsupported, `${SDK_PACKAGE} ${sdkVersion}`, surfaceCalled(handle));
    const account = handlers.forSession(config, args.handlers, handle, declaredSessionKeys().resume);
    const session = await client.resumeSession(sessionId, config);
    ref.session = session;
    sessions.set(handle, { session, client });
    return { sessionId: session.sessionId, ...(args.handlers ? account : {}), ...(kept.length ? { kept } : {}) };
  },

  async setTools(args) {
    if (typeof CopilotSession.prototype.setTools !== "function") {
      throw new Unsupported(
        `${SDK_PACKAGE} ${sdkVersion} has no CopilotSession.setTools (high-level tool replacement); ` +
          `only the generated session.rpc.tools.set exists, which does not replace the handlers`,
      );
    }
    const session = sessionOf(args);
    const specs = need(args, "tools", "array");
    const ref = { session };
    await session.setTools(buildTools(specs, args.session, ref));
    return {};
  },

  // The generated RPC, called the way an application would: wire-format tool definitions, no
  // handlers. Runs where only the raw RPC exists (no high-level setTools).
  async setToolsRpc(args) {
    const session = sessionOf(args);
    const tools = need(args, "tools", "array");
    if (typeof session.rpc?.tools?.set !== "function") {
      throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion} has no generated session.rpc.tools.set`);
    }
    await session.rpc.tools.set({ tools });
    return {};
  },

  async clearContext(args) {
    const session = sessionOf(args);
    const prompt = need(args, "prompt");
    if (typeof session.rpc?.history?.clearContext !== "function") {
      throw new Unsupported(`${SDK_PACKAGE} ${sdkVersion} has no session.rpc.history.clearContext`);
    }
    const r = await session.rpc.history.clearContext({ prompt });
    return { messagesCleared: r?.messagesCleared };
  },

  async send(args) {
    const session = sessionOf(args);
    const prompt = need(args, "prompt");
    if (args.wait) {
      const cancel = typeof args.cancelAfterMs === "number" ? args.cancelAfterMs : undefined;
      const timeout = cancel ?? (typeof args.timeoutMs === "number" ? args.timeoutMs : undefined);
      // MessageOptions ({ prompt }): every release takes it; 1.0.0-beta.4 takes no bare string.
      // A timer due with the SDK's own timeout (set before it, so it runs first) marks when
      // the cancellation took effect.
      let fired;
      const mark = cancel === undefined ? undefined : setTimeout(() => { fired = performance.now(); }, cancel);
      const message = await session.sendAndWait({ prompt }, timeout).catch((e) => {
        if (cancel === undefined || !SEND_AND_WAIT_TIMEOUT.test(errMessage(e))) throw e;
        throw new Cancelled(e, fired === undefined ? 0 : Math.round(performance.now() - fired));
      }).finally(() => clearTimeout(mark));
      const result = {};
      if (message?.data?.messageId !== undefined) result.messageId = message.data.messageId;
      if (message?.data?.content !== undefined) result.content = message.data.content;
      return result;
    }
    const messageId = await session.send({ prompt });
    return messageId === undefined ? {} : { messageId };
  },

  async rpc(args) {
    return rpcCall(args);
  },

  async rpcBatch(args) {
    const outcomes = [];
    for (const call of need(args, "calls", "array")) {
      try {
        outcomes.push({ outcome: "ok", ...(await rpcCall(call)) });
      } catch (e) {
        if (e instanceof Unsupported) outcomes.push({ outcome: "unsupported", reason: e.message });
        else outcomes.push({ outcome: "error", error: errObject(e) });
      }
    }
    return { outcomes };
  },

  async disconnect(args) {
    const session = sessionOf(args);
    await session.disconnect();
    sessions.delete(args.session);
    return {};
  },

  async stopClient(args) {
    const client = clientOf(args);
    const errors = await client.stop();
    clients.delete(args.client);
    for (const [h, s] of sessions) if (s.client === client) sessions.delete(h);
    if (errors?.length) {
      const e = new Error(errors.map(errMessage).join("; "));
      e.name = errType(errors[0]);
      throw e;
    }
    return {};
  },
};

function errType(e) {
  if (e instanceof DriverError) return "DriverError";
  return e?.constructor?.name && e.constructor.name !== "Object" ? e.constructor.name : e?.name ?? "Error";
}

function errMessage(e) {
  return e instanceof Error ? e.message : String(e);
}

// errObject is the protocol's error (PROTOCOL.md "Errors"): type and message, and for an error the
// SDK raised the JSON-RPC code and data as an application reads them, from the fields of the
// error object (vscode-jsonrpc's ResponseError has a numeric `code` and `data`); null where the
// error has none.
function errObject(e) {
  if (e instanceof Cancelled) return { ...errObject(e.cause), cancelled: true, afterCancelMs: e.afterCancelMs };
  const out = { type: errType(e), message: errMessage(e) };
  if (e instanceof DriverError) return out;
  out.code = typeof e?.code === "number" ? e.code : null;
  out.data = e?.data === undefined ? null : e.data;
  return out;
}

let shuttingDown = false;

async function handle(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    diag(`unparseable line: ${e.message}`);
    return;
  }
  const { id, cmd, args } = msg ?? {};
  if (shuttingDown) return;
  if (cmd === "shutdown") {
    shuttingDown = true;
    await new Promise((r) => writeLine({ id, outcome: "ok", result: {} }, r));
    await exit(0);
    return;
  }
  const fn = Object.hasOwn(commands, cmd) ? commands[cmd] : undefined;
  try {
    // A newer protocol command this driver does not know: the SDK cannot be asked to do it.
    if (!fn) throw new Unsupported(`the node driver has no command ${JSON.stringify(cmd)}`);
    const result = await fn(args ?? {});
    writeLine({ id, outcome: "ok", result });
  } catch (e) {
    if (e instanceof Unsupported) {
      writeLine({ id, outcome: "unsupported", reason: e.message });
    } else {
      diag(`${cmd} failed: ${e instanceof DriverError ? e.message : e?.stack ?? e}`);
      writeLine({ id, outcome: "error", error: errObject(e) });
    }
  }
}

let exiting = false;
async function exit(code) {
  if (exiting) return;
  exiting = true;
  // Release runtimes the SDK spawned; do not wait long for them.
  const stops = [...clients.values()].map((c) => c.forceStop().catch(() => {}));
  await Promise.race([Promise.all(stops), new Promise((r) => setTimeout(r, 2000))]);
  process.exit(code);
}

// The SDK's tool handlers run fire-and-forget; keep a stray rejection from killing the driver.
process.on("unhandledRejection", (e) => diag(`unhandled rejection: ${e?.stack ?? e}`));

if (process.argv.includes("--self-check")) {
  // Used by the harness's Prepare: the SDK imports and its metadata is readable.
  const { caps } = capabilities();
  writeFileSync(SURFACE_CACHE, JSON.stringify({ sdkVersion, sdkDir: installed.dir, entries: surface(installed.dir) }));
  process.stderr.write(`${SDK_PACKAGE} ${sdkVersion} (${sdkSource()}) ${JSON.stringify(caps)}\n`);
  process.exit(0);
}

// driver.concurrent: every command starts as it arrives, without awaiting the ones before, so
// that scenarios sharing this process overlap their waits (one scenario's commands still come
// one at a time: the harness waits for each answer). Events are written whenever the SDK calls
// back, also while commands are running.
const running = new Set();
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (line.trim() === "") return;
  const p = handle(line).finally(() => running.delete(p));
  running.add(p);
});
// EOF: let the commands already read finish (briefly), then exit.
rl.on("close", () => {
  void Promise.race([Promise.allSettled([...running]), new Promise((r) => setTimeout(r, 5000))]).then(() => exit(0));
});
