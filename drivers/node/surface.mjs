// The application's surface of the installed SDK (PROTOCOL.md "Surface"), read from its own
// declarations (dist/types.d.ts) with the TypeScript compiler API, so no field list is written
// by hand: every property of each configuration interface, its declared type, and a neutral
// shape the harness generates values from.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

// owner -> the exported interfaces it is declared by (the first one found wins; older versions
// name some of them differently or not at all).
const OWNERS = {
  sessionConfig: ["SessionConfig"],
  resumeConfig: ["ResumeSessionConfig"],
  clientOptions: ["CopilotClientOptions"],
  tool: ["Tool"],
  customAgent: ["CustomAgentConfig"],
  mcpServer: ["MCPStdioServerConfig", "MCPHTTPServerConfig", "MCPLocalServerConfig", "MCPRemoteServerConfig"],
  command: ["CommandDefinition"],
  provider: ["ProviderConfig"],
  systemMessage: ["SystemMessageAppendConfig", "SystemMessageReplaceConfig", "SystemMessageCustomizeConfig"],
};

// shape classifies a declared type for the harness's value generator (PROTOCOL.md "Surface").
function shape(ts, checker, type) {
  const t = checker.getNonNullableType(type);
  if (t.getCallSignatures().length > 0) return { shape: "handler" };
  if (t.isUnion()) {
    const parts = t.types.filter((p) => !(p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    if (parts.every((p) => p.flags & ts.TypeFlags.BooleanLiteral)) return { shape: "boolean" };
    if (parts.every((p) => p.isStringLiteral())) return { shape: "enum", values: parts.map((p) => p.value) };
    if (parts.some((p) => p.getCallSignatures().length > 0)) return { shape: "handler" };
    // `string[] | ToolSet`: an application's plain list is the string list.
    if (parts.some((p) => checker.isArrayType(p) && checker.getTypeArguments(p)[0].flags & ts.TypeFlags.String)) {
      return { shape: "string[]" };
    }
    // `ZodSchema<TArgs> | Record<string, unknown>`: an application's plain object is the map.
    const isMap = (p) => p.flags & ts.TypeFlags.Object && p.getProperties().length === 0 && checker.getIndexInfosOfType(p).length > 0;
    if (parts.some(isMap) && !parts.some((p) => p.getCallSignatures().length > 0)) return { shape: "map" };
    return { shape: "other" };
  }
  if (t.flags & ts.TypeFlags.String) return { shape: "string" };
  if (t.flags & ts.TypeFlags.Number) return { shape: "number" };
  if (t.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { shape: "boolean" };
  if (t.isStringLiteral()) return { shape: "enum", values: [t.value] };
  if (checker.isArrayType(t)) {
    const el = checker.getNonNullableType(checker.getTypeArguments(t)[0]);
    if (el.flags & ts.TypeFlags.String) return { shape: "string[]" };
    return { shape: "array" };
  }
  if (t.flags & ts.TypeFlags.Object) {
    if (checker.getIndexInfosOfType(t).length > 0 && t.getProperties().length === 0) return { shape: "map" };
    return { shape: "object" };
  }
  return { shape: "other" };
}

// objectOf is the object type a field holds (itself, a list's element, a map's value), when
// it declares properties; else undefined.
function objectOf(ts, checker, type) {
  let t = checker.getNonNullableType(type);
  if (checker.isArrayType(t)) t = checker.getNonNullableType(checker.getTypeArguments(t)[0]);
  else if (t.getProperties().length === 0 && checker.getIndexInfosOfType(t).length > 0) {
    t = checker.getNonNullableType(checker.getIndexInfosOfType(t)[0].type);
  }
  if (t.isUnion() || t.getCallSignatures().length > 0 || checker.isArrayType(t)) return undefined;
  return t.flags & ts.TypeFlags.Object && t.getProperties().length > 0 ? t : undefined;
}

// member is one property of a declared type as an entry (PROTOCOL.md "Surface"), with the
// members of the object it holds (`fields`, two levels down) read the same way. An object whose
// every member is a callback (SessionHooks) is a handler the application registers.
function member(ts, checker, prop, owner, declaredBy, depth) {
  const decl = prop.valueDeclaration ?? prop.declarations?.[0];
  const type = decl ? checker.getTypeOfSymbolAtLocation(prop, decl) : checker.getTypeOfSymbol(prop);
  const s = shape(ts, checker, type);
  const e = {
    owner,
    name: prop.name,
    type: checker.typeToString(checker.getNonNullableType(type)),
    kind: s.shape === "handler" ? "handler" : "field",
    shape: s.shape,
    ...(s.values ? { values: s.values } : {}),
    optional: (prop.flags & ts.SymbolFlags.Optional) !== 0,
    declaredBy,
  };
  const obj = s.shape === "handler" ? undefined : objectOf(ts, checker, type);
  if (obj) {
    // A class's ECMAScript private members (#x) are not the application's to set.
    const props = checker.getPropertiesOfType(obj).filter((p) => !p.name.startsWith("#"));
    const fields = depth < 2 ? props.map((p) => member(ts, checker, p, owner, declaredBy, depth + 1)) : [];
    if (fields.length > 0) e.fields = fields;
    if (s.shape === "object" && fields.length > 0 && fields.every((f) => f.kind === "handler")) e.kind = "handler";
  }
  return e;
}

// declarations type-checks the installed dist/types.d.ts: the compiler, its checker and the
// module's exported symbols by name (an alias resolved).
function declarations(packageDir) {
  const ts = require("typescript");
  const file = join(packageDir, "dist", "types.d.ts");
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file}`);
  const exported = new Map();
  for (const sym of checker.getExportsOfModule(checker.getSymbolAtLocation(source))) {
    exported.set(sym.name, sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym);
  }
  return { ts, checker, exported };
}

// surface returns every entry of the installed SDK's declared application surface.
export function surface(packageDir) {
  const { ts, checker, exported } = declarations(packageDir);
  const entries = [];
  for (const [owner, names] of Object.entries(OWNERS)) {
    const seen = new Set();
    for (const name of names) {
      const sym = exported.get(name);
      if (!sym) continue;
      const declared = checker.getDeclaredTypeOfSymbol(sym);
      for (const prop of checker.getPropertiesOfType(declared)) {
        if (seen.has(prop.name)) continue;
        seen.add(prop.name);
        entries.push(member(ts, checker, prop, owner, `${name} (dist/types.d.ts)`, 0));
      }
    }
  }
  return entries;
}

// hookInputs reads, for each hook of the installed SDK's SessionHooks (onPreToolUse, …), the
// input type its handler takes (the first parameter: PreToolUseHookInput) and declares that
// type's members (PROTOCOL.md "Runtime→SDK methods", hookInputs): keyed by hook type
// (preToolUse), each member under its own name (the SDK declares no other wire key), a Date
// member as the shape `date`.
export function hookInputs(packageDir) {
  const { ts, checker, exported } = declarations(packageDir);
  const hooks = exported.get("SessionHooks");
  const out = {};
  if (!hooks) return out;
  for (const hook of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(hooks))) {
    const decl = hook.valueDeclaration ?? hook.declarations?.[0];
    const fn = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(hook, decl));
    const param = fn.getCallSignatures()[0]?.getParameters()[0];
    if (!param || !/^on[A-Z]/.test(hook.name)) continue;
    const input = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(param, param.valueDeclaration));
    const declaredBy = `${checker.typeToString(input)} (dist/types.d.ts)`;
    const members = checker.getPropertiesOfType(input).map((prop) => {
      const e = member(ts, checker, prop, "hookInput", declaredBy, 2);
      if (e.type === "Date") e.shape = "date";
      return { ...e, wire: e.name };
    });
    out[hook.name[2].toLowerCase() + hook.name.slice(3)] = { declaredBy, members };
  }
  return out;
}

// applyFields sets each of `fields` (SDK field name -> JSON value) on `target` as declared by
// `owner`; a name the installed SDK does not declare there is unsupported, never ignored.
export function applyFields(target, fields, owner, entries, Unsupported, where) {
  for (const [name, value] of Object.entries(fields ?? {})) {
    const e = entries.find((x) => x.owner === owner && x.name === name);
    if (!e) throw new Unsupported(`${where}: ${owner} declares no field ${name}`);
    if (e.kind !== "field") throw new Unsupported(`${where}: ${owner}.${name} is a handler, not a field`);
    target[name] = withCallbacks(value, e);
  }
}

// withCallbacks gives every object of `value` (itself, a list's elements, a map's values) a
// do-nothing callback for each required callback member of the declared type that it lacks
// (capability surface.callbacks: a command's handler, a canvas's open), and the same below.
function withCallbacks(value, e) {
  if (!e.fields || value === null || typeof value !== "object") return value;
  const fill = (obj) => {
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return obj;
    const out = { ...obj };
    for (const f of e.fields) {
      if (f.kind === "handler" && f.shape === "handler" && !f.optional && out[f.name] === undefined) out[f.name] = () => undefined;
      else if (out[f.name] !== undefined) out[f.name] = withCallbacks(out[f.name], f);
    }
    return out;
  };
  if (Array.isArray(value)) return value.map(fill);
  if (e.shape === "map") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return fill(value);
}

// applyHandlers registers, for each name of `names` that `owner` declares as a handler, a
// callback that does nothing but call `called(name)` and answers undefined (PROTOCOL.md
// "Surface", surfaceHandlers): the harness reads what registering it announces in the request,
// and which of them the runtime's calls reach. A callback the driver set already (the permission
// handler, event forwarding) is kept; the names kept are returned.
export function applyHandlers(target, names, owner, entries, Unsupported, where, called = () => {}) {
  const kept = [];
  for (const name of names ?? []) {
    const e = entries.find((x) => x.owner === owner && x.name === name);
    if (!e) throw new Unsupported(`${where}: ${owner} declares no handler ${name}`);
    if (e.kind !== "handler") throw new Unsupported(`${where}: ${owner}.${name} is a field, not a handler`);
    if (target[name] !== undefined) {
      kept.push(name);
      continue;
    }
    const noop = () => {
      called(name);
      return undefined;
    };
    // An object of callbacks (SessionHooks): each of its members, doing nothing.
    target[name] = e.shape === "handler" ? noop : Object.fromEntries((e.fields ?? []).map((f) => [f.name, noop]));
  }
  return kept;
}
