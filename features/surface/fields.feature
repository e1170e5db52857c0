Feature: Every session config field the SDK declares reaches the request, as the application set it
  The application's surface is the SDK's own: its driver reads every field of the session
  config, resume config, client options and definition types from the SDK's declarations (the
  .d.ts, reflection, introspection, the crate source), so no list here can lag the SDK. Each
  field is set alone with values generated from its declared type (a non-ASCII string; true and
  false where false can be told from "not set"; a non-empty list and []; an enum's first value;
  a one-entry map and {}, whose values follow the declared value type through nested maps and
  lists, in every SDK's spelling of it); a field holding definitions (custom agents, MCP servers, tools,
  providers, system messages) gets the full definition, a minimal one, and one per optional
  field set alone, built from the definition type's own inventoried fields, in a list or map
  as declared, and the empty list or map; inside a definition, each optional list, map and
  nullable member is also set alone to [] / {} / null (null only where the runtime's schema lets
  that member be null), and a member holding a definition or object (a custom agent's MCP
  servers, a provider's azure options, system message sections) gets its own members' values
  and edge values the same way, inside the parent's minimal form; any other object field is built the same way from the
  members the driver read from the SDK's declaration of its type (a required callback among them
  is the driver's do-nothing one; a registration of one declaration beside callbacks must send
  the declaration). Session and resume fields go on create and on resume;
  client options on a client of their own, looked for in connect, session.create and every later
  request, and, for an option no request carries, on a client that starts its runtime itself:
  looked for in that process's arguments, environment (as the SDK passed it: variables added,
  changed or removed, or the whole environment replaced) and working directory (where an SDK puts
  a log level, a token, a telemetry config, an environment), against two such clients without
  options. The value must reach its request under one key as set (no canonical default: [] stays
  [], false stays false, a key not set is not sent as null; an unset member sent as its type's
  zero value, as every SDK sends a command's description "", is the same value, but not as [] or
  {}: absent stays absent inside a definition too; a failure names each nested path that
  differs: customAgents.0.tools: want [], the key is absent), and nothing
  else in the request may change; a field sent for one value must be sent for every value, under
  the same key on create and on resume. The runtime's schema is the contract: an option its
  definitions.SessionOpenOptions lists (read in every run) must reach session.create /
  session.resume itself, not only a later request such as session.options.update (the option
  would not apply when the session opens); a declared field that is not a handler and that no
  request (nor the process of a client that starts its runtime) carries for any value set is
  dropped, unless fixtures/client-side-fields.yaml says why it stays on the client (an entry whose
  field is sent fails too). The same field must reach the same key on every SDK that declares it: a
  difference not listed in fixtures/expected-differences.yaml fails the run; a field only some
  SDKs declare is informational (the report's field × SDK matrix). The transcript's note counts,
  per type, the fields with a generated check and says why each other field has none.

  @requires.surface @requires.session.resume
  Scenario: every declared session config field, set alone, reaches session.create and session.resume unchanged
    When every session config field the SDK declares is set alone, on create and on resume, with values generated from its type
    Then each value reaches its request under one key, unchanged, and nothing else in the request changes
