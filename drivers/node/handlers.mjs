// Runtime-to-SDK handlers (../PROTOCOL.md "Generated RPC layer", Runtime→SDK methods): for each
// clientSession / clientGlobal method the harness names, register the SDK's public handler or
// provider the way an application would, report what it received (rpc.handled) and return the
// result the harness chose. The mapping from a schema method to the SDK's API is this SDK's API
// (a provider interface with positional arguments, a canvas factory, a config callback): it is
// written here, per method, on purpose.

// The handler reports its input in the schema's names; positional arguments are put back under
// those names, an argument the application was not given (undefined) left out.
function named(pairs) {
  const out = {};
  for (const [k, v] of Object.entries(pairs)) if (v !== undefined) out[k] = v;
  return out;
}

// A JSON pointer for one key of a result.
const at = (k) => `/${String(k).replaceAll("~", "~0").replaceAll("/", "~1")}`;

// The keys of a result object other than `keep`: what a handler API that returns only `keep`
// cannot return.
function beyond(result, ...keep) {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return [];
  return Object.keys(result).filter((k) => !keep.includes(k)).map(at);
}

// An error the session file-system adapter turns into a SessionFsError: its code is the
// provider error's `code` (the SDK maps ENOENT and calls every other code UNKNOWN).
function fsError(r) {
  const e = new Error(r.message);
  e.code = r.code;
  return e;
}

// Which methods go where: client options at connect, session config at create/resume.
const CLIENT_LEVEL = new Set(["gitHubTelemetry.event", "extensionLaunchProvider.resolve"]);
// Session file-system methods need the client option sessionFs at connect and the session's
// provider at create.
const isFs = (m) => m.startsWith("sessionFs.");
const isSqlite = (m) => m.startsWith("sessionFs.sqlite");

export function makeHandlers({ emit, held, sdk, sdkName, clientOptionKeys, sessionFsMembers, sqliteMembers, hookMembers, hookInputs }) {
  const { createCanvas } = sdk;

  // session: the session handle of a per-session handler; client: the client handle of a
  // client-level one (the harness routes a shared driver's events by handle). The handler then
  // waits while the harness holds its method (holds.mjs), so every call site awaits it.
  async function report(session, method, params, unrepresentable = [], client = undefined) {
    const args = { method, params };
    if (session !== undefined) args.session = session;
    if (client !== undefined) args.client = client;
    if (unrepresentable.length) args.unrepresentable = unrepresentable;
    emit("rpc.handled", args);
    await held(session ?? client, method);
  }

  // connect: client options. Returns the account of what it registered.
  function forClient(clientOptions, handlers, clientHandle) {
    const handled = [];
    const unhandled = {};
    if (!handlers) return { handled, unhandled };
    for (const method of Object.keys(handlers)) {
      if (method === "gitHubTelemetry.event" && !clientOptionKeys().has("onGitHubTelemetry")) {
        unhandled[method] = `${sdkName}: no public API registers a ${method} handler (CopilotClientOptions has no onGitHubTelemetry)`;
      } else if (method === "gitHubTelemetry.event") {
        clientOptions.onGitHubTelemetry = async (notification) => {
          await report(undefined, method, notification ?? null, [], clientHandle);
        };
        handled.push(method);
      } else if (method === "extensionLaunchProvider.resolve" && !clientOptionKeys().has("extensionLaunchProvider")) {
        unhandled[method] = `${sdkName}: no public API registers a ${method} handler (CopilotClientOptions has no extensionLaunchProvider)`;
      } else if (method === "extensionLaunchProvider.resolve") {
        // A connection-global provider (1.0.15 previews on): its resolve(params) is the method.
        const result = handlers[method].result ?? null;
        clientOptions.extensionLaunchProvider = {
          async resolve(params) {
            await report(undefined, method, params ?? null, [], clientHandle);
            return result;
          },
        };
        handled.push(method);
      } else if (method.startsWith("llmInference.")) {
        unhandled[method] =
          `driver: the ${sdkName} public API for ${method} is CopilotClientOptions.requestHandler (a CopilotRequestHandler that serves whole HTTP exchanges and whose start/chunk acknowledgements the SDK writes itself); the driver does not map it yet`;
      }
    }
    if (Object.keys(handlers).some(isFs)) {
      // The provider answers in POSIX paths; sqlite declared so that the sqlite methods reach it.
      clientOptions.sessionFs = { initialCwd: "/", sessionStatePath: "/session-state", conventions: "posix", capabilities: { sqlite: true } };
    }
    return { handled, unhandled };
  }

  // connect's requestHandler (../PROTOCOL.md "Request handler"): a CopilotRequestHandler whose
  // sendRequest reports the HTTP request it is handed (its head under the start method, its body
  // under the chunk method, base64) and answers every one with the given response.
  function forRequests(clientOptions, { start, chunk, response }, clientHandle) {
    class Reporting extends sdk.CopilotRequestHandler {
      async sendRequest(request, ctx) {
        const body = Buffer.from(await request.arrayBuffer());
        // The context's own scalar fields (requestId, sessionId, agentId, …) as the SDK named
        // them, and the head as the Request the application is handed carries it.
        const head = Object.fromEntries(Object.entries(ctx).filter(([, v]) => typeof v === "string"));
        const headers = {};
        for (const [k, v] of request.headers) (headers[k] ??= []).push(v);
        Object.assign(head, { method: request.method, url: request.url, headers });
        await report(undefined, start, head, [], clientHandle);
        await report(undefined, chunk, { requestId: ctx.requestId, data: body.toString("base64"), binary: true }, [], clientHandle);
        const h = new Headers();
        for (const [k, vs] of Object.entries(response.headers ?? {})) for (const v of vs) h.append(k, v);
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers: h });
      }
    }
    clientOptions.requestHandler = new Reporting();
    return { handled: [start, chunk], unhandled: {} };
  }

  // createSession / resumeSession: session config. declared: the SessionConfig keys the .d.ts has.
  function forSession(config, handlers, handle, declared) {
    const handled = [];
    const unhandled = {};
    const unhandledCases = {};
    let hookInputTypes; // hooks.invoke: each registered hook type's declared input
    if (!handlers) return { handled, unhandled };
    const want = (m) => Object.hasOwn(handlers, m);
    const result = (m) => handlers[m].result ?? null;
    const params = (m) => (want(m) ? handlers[m].params ?? [] : []);
    const missing = (m, symbol) => {
      unhandled[m] = `${sdkName}: no public API registers a ${m} handler (${symbol})`;
    };

    // Session file system: one provider for the session (SessionConfig.createSessionFsProvider;
    // 1.0.0-beta releases name the same `(session) => SessionFsProvider` createSessionFsHandler,
    // so the key is the one this SDK's .d.ts declares).
    let fs = Object.keys(handlers).filter(isFs);
    // sessionFs.sqliteX reaches SessionFsProvider.sqlite's x (the sqlite provider is absent before
    // 1.0, its transaction before 1.0.9): a method whose member this version lacks is unhandled.
    const lacks = (m) => {
      if (!isSqlite(m)) return undefined;
      if (!sessionFsMembers().has("sqlite")) return "SessionFsProvider has no sqlite";
      const member = m.slice("sessionFs.sqlite".length).replace(/^./, (c) => c.toLowerCase());
      return sqliteMembers().has(member) ? undefined : `SessionFsSqliteProvider has no ${member}`;
    };
    for (const m of fs) if (lacks(m)) missing(m, lacks(m));
    fs = fs.filter((m) => !lacks(m));
    const fsKey = ["createSessionFsProvider", "createSessionFsHandler"].find((k) => declared.has(k));
    if (fs.length) {
      if (!fsKey) {
        for (const m of fs) missing(m, "SessionConfig has no createSessionFsProvider");
      } else {
        const r = (m) => result(`sessionFs.${m}`);
        const done = (m, input, unrep = []) => report(handle, `sessionFs.${m}`, input, unrep);
        // A void method's result is null or a SessionFsError, which the provider throws.
        const voidOrError = (m) => {
          const v = r(m);
          if (v && typeof v === "object") throw fsError(v);
        };
        const sqlite = {
          async query(queryType, query, bind) {
            const v = r("sqliteQuery");
            await done("sqliteQuery", named({ queryType, query, params: bind }));
            return v;
          },
          async transaction(statements) {
            const v = r("sqliteTransaction");
            await done("sqliteTransaction", { statements }, beyond(v, "results"));
            return v?.results ?? [];
          },
          async exists() {
            const v = r("sqliteExists");
            await done("sqliteExists", {}, beyond(v, "exists"));
            return v?.exists;
          },
        };
        config[fsKey] = () => ({
          async readFile(path) {
            const v = r("readFile");
            await done("readFile", named({ path }), beyond(v, "content"));
            return v?.content;
          },
          async writeFile(path, content, mode) {
            await done("writeFile", named({ path, content, mode }));
            voidOrError("writeFile");
          },
          async appendFile(path, content, mode) {
            await done("appendFile", named({ path, content, mode }));
            voidOrError("appendFile");
          },
          async exists(path) {
            const v = r("exists");
            await done("exists", named({ path }), beyond(v, "exists"));
            return v?.exists;
          },
          async stat(path) {
            const v = r("stat");
            const { error, ...info } = v ?? {};
            await done("stat", named({ path }), error === undefined ? [] : ["/error"]);
            return info;
          },
          async mkdir(path, recursive, mode) {
            await done("mkdir", named({ path, recursive, mode }));
            voidOrError("mkdir");
          },
          async readdir(path) {
            const v = r("readdir");
            await done("readdir", named({ path }), beyond(v, "entries"));
            return v?.entries;
          },
          async readdirWithTypes(path) {
            const v = r("readdirWithTypes");
            await done("readdirWithTypes", named({ path }), beyond(v, "entries"));
            return v?.entries;
          },
          async rm(path, recursive, force) {
            await done("rm", named({ path, recursive, force }));
            voidOrError("rm");
          },
          async rename(src, dest) {
            await done("rename", named({ src, dest }));
            voidOrError("rename");
          },
          sqlite,
        });
        handled.push(...fs);
      }
    }

    // Canvases (SessionConfig.canvases, createCanvas): one canvas per canvas id the runtime will
    // name, each with the actions it will invoke.
    const canvasMethods = ["canvas.open", "canvas.close", "canvas.action.invoke"].filter(want);
    if (canvasMethods.length) {
      if (!declared.has("canvases") || typeof createCanvas !== "function") {
        for (const m of canvasMethods) missing(m, "SessionConfig has no canvases / no createCanvas");
      } else {
        const ids = new Map(); // canvasId -> Set(actionName)
        for (const m of canvasMethods) {
          for (const p of params(m)) {
            if (!ids.has(p?.canvasId)) ids.set(p?.canvasId, new Set());
            if (m === "canvas.action.invoke") ids.get(p.canvasId).add(p.actionName);
          }
        }
        config.canvases = [...ids].map(([id, actions]) =>
          createCanvas({
            id,
            displayName: id,
            description: `conformance canvas ${id}`,
            actions: [...actions].map((name) => ({
              name,
              description: `conformance action ${name}`,
              handler: async (ctx) => {
                await report(handle, "canvas.action.invoke", ctx ?? null);
                return result("canvas.action.invoke");
              },
            })),
            open: async (ctx) => {
              await report(handle, "canvas.open", ctx ?? null);
              return result("canvas.open");
            },
            onClose: async (ctx) => {
              await report(handle, "canvas.close", ctx ?? null);
            },
          }),
        );
        handled.push(...canvasMethods);
      }
    }

    // BYOK bearer tokens: a named provider per provider name the runtime will ask for
    // (SessionConfig.providers[].bearerTokenProvider).
    if (want("providerToken.getToken")) {
      const m = "providerToken.getToken";
      if (!declared.has("providers")) {
        missing(m, "SessionConfig has no providers");
      } else {
        const names = new Set(params(m).map((p) => p?.providerName));
        const v = result(m);
        config.providers = [...names].map((name) => ({
          name,
          type: "openai",
          baseUrl: "http://127.0.0.1:9/v1",
          bearerTokenProvider: async (args) => {
            await report(handle, m, args ?? null, beyond(v, "token"));
            return v?.token;
          },
        }));
        handled.push(m);
      }
    }

    // GitHub token per session (SessionConfig.gitHubTokenProvider).
    if (want("gitHubToken.getToken")) {
      const m = "gitHubToken.getToken";
      if (!declared.has("gitHubTokenProvider")) {
        missing(m, "SessionConfig has no gitHubTokenProvider");
      } else {
        config.gitHubTokenProvider = async (args) => {
          await report(handle, m, args ?? null);
          return result(m);
        };
        handled.push(m);
      }
    }

    // Hooks (SessionConfig.hooks): one hook per hook type the runtime will invoke, named the
    // SDK's way (preToolUse -> onPreToolUse). The hook gets the invocation's input and its
    // context ({sessionId}); its return value is the output.
    if (want("hooks.invoke")) {
      const m = "hooks.invoke";
      if (!declared.has("hooks")) {
        missing(m, "SessionConfig has no hooks");
      } else {
        const v = result(m);
        const hooks = {};
        // A hook type this version's SessionHooks does not declare has no handler to register:
        // named in unhandledCases (a .d.ts without the interface keeps the old behaviour).
        const declaredHooks = hookMembers();
        for (const p of params(m)) {
          const type = p?.hookType;
          if (typeof type !== "string" || type === "") continue;
          const key = `on${type[0].toUpperCase()}${type.slice(1)}`;
          if (declaredHooks.size > 0 && !declaredHooks.has(key)) {
            (unhandledCases[m] ??= []).push({ params: { hookType: type }, reason: `${sdkName}: SessionHooks has no ${key}` });
            continue;
          }
          const declaredInput = hookInputs()[type];
          if (declaredInput) (hookInputTypes ??= {})[type] = declaredInput;
          hooks[key] = async (input, invocation) => {
            await report(handle, m, named({ hookType: type, input, sessionId: invocation?.sessionId }), beyond(v, "output"));
            return v?.output;
          };
        }
        config.hooks = hooks;
        handled.push(m);
      }
    }

    // Methods the installed SDK has no public handler API for.
    const absent = {
      "factory.execute": "factories register only through joinSession() of @github/copilot-sdk/extension, for an extension process the CLI launched; SessionConfig has no factories",
      "factory.abort": "factories register only through joinSession() of @github/copilot-sdk/extension, for an extension process the CLI launched; SessionConfig has no factories",
    };
    for (const m of Object.keys(handlers)) {
      if (handled.includes(m) || Object.hasOwn(unhandled, m) || CLIENT_LEVEL.has(m) || m.startsWith("llmInference.")) continue;
      if (Object.hasOwn(absent, m)) {
        unhandled[m] = `${sdkName}: ${absent[m]}`;
        continue;
      }
      // Not in the SDK at all: the namespace is not in its generated client-session / global
      // handler interfaces, and no config or client option takes a handler for it.
      const ns = m.slice(0, m.lastIndexOf("."));
      unhandled[m] = `${sdkName}: no public API registers a ${m} handler (no ${ns} handler in SessionConfig or CopilotClientOptions)`;
    }
    const account = Object.keys(unhandledCases).length ? { handled, unhandled, unhandledCases } : { handled, unhandled };
    // Each registered hook's input as the SDK declares it (PROTOCOL.md, hookInputs).
    if (hookInputTypes) account.hookInputs = hookInputTypes;
    return account;
  }

  return { forClient, forRequests, forSession };
}
