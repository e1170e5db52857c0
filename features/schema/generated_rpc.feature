@sweep
Feature: Every public method of the runtime's schema through the SDK's generated layer
  Every SDK ships a layer generated from the runtime's api.schema.json, public and typed. Each
  public method the SDK calls is called through it the way an application would, with values
  generated from the method's params schema (only the required params, every optional param, and
  edge cases: each enum value and anyOf branch, null where nullable, empty lists and objects,
  bounds, date-times, URIs, non-ASCII strings), seeded so that every SDK gets the same cases.
  The runtime answers each with a result generated from the method's result schema. What reaches
  the runtime must be exactly what the application gave (no key lost, renamed, re-cased or added,
  null kept), and the application must get exactly what the runtime sent.

  @requires.rpc.generated
  Scenario Outline: every public <group> method carries the application's params and the runtime's result
    Given an SDK client connected to the runtime
    And a session is created
    When the application calls every public "<group>" method of the runtime's schema through the SDK's generated layer
    Then every generated call reached the runtime with exactly the params the application gave
    And the application received every generated result as the runtime sent it

    Examples:
      | group   |
      | server  |
      | session |

  @requires.rpc.generated
  Scenario Outline: every public <group> method's result reaches the application <variant>
    The runtime's results come in other shapes too, each allowed by the result schema: only the
    required fields, null wherever a field is nullable, every field plus one the schema does not
    know in every object (as a newer runtime would send), and each alternative of every
    discriminated union (a const discriminator, strings and booleans alike); and the every-field
    result in the other legal encodings of the same JSON (every integer written as a float, 5.0;
    every number in exponent form, 5e0; every string escaped, \u00e9 and \/, with each object's
    keys reversed). What the application gets must be what was sent: a field left out stays out
    (no default, no null filled in), no value changes, and nothing the SDK decodes raises; a
    field the schema does not know may be dropped by a typed result.

    Given an SDK client connected to the runtime
    And a session is created
    When the application calls every public "<group>" method of the runtime's schema through the SDK's generated layer, answered <variant>
    Then the application received every generated result as the runtime sent it

    Examples:
      | group   | variant                                         |
      | server  | with only the required fields                   |
      | server  | with every nullable field null                  |
      | server  | with fields the schema does not know            |
      | server  | with every discriminator value                  |
      | session | with only the required fields                   |
      | session | with every nullable field null                  |
      | session | with fields the schema does not know            |
      | session | with every discriminator value                  |
      | server  | with every integer written as a float           |
      | server  | with every number in exponent form              |
      | server  | with every string escaped and its keys reversed |
      | session | with every integer written as a float           |
      | session | with every number in exponent form              |
      | session | with every string escaped and its keys reversed |
