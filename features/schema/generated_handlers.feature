@sweep
Feature: Every runtime-to-SDK method of the runtime's schema reaches the application's handler
  The runtime calls the SDK too: the clientSession and clientGlobal methods of api.schema.json
  (session file system, canvases, factories, provider and GitHub tokens, client tasks, hooks,
  extension launch, LLM inference, telemetry, skills). For each, the application registers the
  matching handler or provider through the SDK's public API; the runtime sends it params
  generated from the method's params schema (only the required ones, and every optional one);
  the handler must receive what the runtime sent, and the SDK must answer with exactly what the
  handler returned (generated from the method's result schema), valid against that schema. A
  method the SDK has no public handler API for is named with the reason in the coverage, and is
  called all the same, as the real runtime may: the SDK must answer it (an error will do).
  The schema declares a hook's input opaque (hooks.invoke): each hook type the SDK has a hook for
  is also sent inputs with every member the SDK's own input type declares (every member, only the
  required ones, each member's every edge), and the hook must read each as sent.

  @requires.rpc.handlers
  Scenario: every runtime-to-SDK method reaches the application's handler and carries its answer back
    Given the application registered a handler for every runtime-to-SDK method of the runtime's schema
    When the runtime calls every registered handler with params generated from the runtime's schema
    Then every handler received the params the runtime sent
    And the SDK answered every handled call with what the application's handler returned
    And the SDK answered every call of a method it has no handler for

  @requires.rpc.handlers
  Scenario Outline: every runtime-to-SDK method's params reach the application's handler <variant>
    A runtime may write the same JSON otherwise than the stand-in does: an integer as 5.0 (as
    serde_json writes an f64) or 5e0, a string with escapes (\u00e9, \/), an object's keys in
    another order. Every generated case is sent again so written; the handler must receive the
    same values and the SDK must answer as before.

    Given the application registered a handler for every runtime-to-SDK method of the runtime's schema
    When the runtime calls every registered handler with params generated from the runtime's schema, written <variant>
    Then every handler received the params the runtime sent
    And the SDK answered every handled call with what the application's handler returned

    Examples:
      | variant                                         |
      | with every integer written as a float           |
      | with every number in exponent form              |
      | with every string escaped and its keys reversed |
