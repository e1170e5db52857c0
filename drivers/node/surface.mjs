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

// surface returns every entry of the installed SDK's declared application surface.
export function surface(packageDir) {
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
        const decl = prop.valueDeclaration ?? prop.declarations?.[0];
        const type = decl ? checker.getTypeOfSymbolAtLocation(prop, decl) : checker.getTypeOfSymbol(prop);
        const s = shape(ts, checker, type);
        entries.push({
          owner,
          name: prop.name,
          type: checker.typeToString(checker.getNonNullableType(type)),
          kind: s.shape === "handler" ? "handler" : "field",
          shape: s.shape,
          ...(s.values ? { values: s.values } : {}),
          optional: (prop.flags & ts.SymbolFlags.Optional) !== 0,
          declaredBy: `${name} (dist/types.d.ts)`,
        });
      }
    }
  }
  return entries;
}

// applyFields sets each of `fields` (SDK field name -> JSON value) on `target` as declared by
// `owner`; a name the installed SDK does not declare there is unsupported, never ignored.
export function applyFields(target, fields, owner, entries, Unsupported, where) {
  for (const [name, value] of Object.entries(fields ?? {})) {
    const e = entries.find((x) => x.owner === owner && x.name === name);
    if (!e) throw new Unsupported(`${where}: ${owner} declares no field ${name}`);
    if (e.kind !== "field") throw new Unsupported(`${where}: ${owner}.${name} is a handler, not a field`);
    target[name] = value;
  }
}

// applyHandlers registers, for each name of `names` that `owner` declares as a handler, a
// callback that does nothing and answers undefined (PROTOCOL.md "Surface", surfaceHandlers):
// the harness reads what registering it announces in the request. A callback the driver set
// already (the permission handler, event forwarding) is kept.
export function applyHandlers(target, names, owner, entries, Unsupported, where) {
  for (const name of names ?? []) {
    const e = entries.find((x) => x.owner === owner && x.name === name);
    if (!e) throw new Unsupported(`${where}: ${owner} declares no handler ${name}`);
    if (e.kind !== "handler") throw new Unsupported(`${where}: ${owner}.${name} is a field, not a handler`);
    if (typeof target[name] !== "function") target[name] = () => undefined;
  }
}
