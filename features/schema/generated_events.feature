@sweep
Feature: Every session event type of the runtime's schema reaches the application as sent
  The runtime's session-events.schema.json describes every event it sends. Each event type is
  sent with values generated from its schema (every field, only the required ones, null wherever
  a field is nullable, every field plus one the schema does not know in every object, as a newer
  runtime would send, and each alternative of every discriminated union, booleans included), and
  the data the application's typed event callback receives must be what was sent: no field
  dropped, renamed or defaulted, a field left out left out. The every-field events are sent again
  in the other legal encodings of the same JSON (every integer written as a float, 5.0, as
  serde_json writes an f64; every number in exponent form, 5e0; every string escaped, \u00e9
  and \/, with each object's keys reversed): the application must receive the same values.

  @requires.rpc.generated @requires.events
  Scenario Outline: every event type reaches the application <variant>
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime sends every event type of the schema <variant>
    Then the application received every generated event as the runtime sent it

    Examples:
      | variant                                         |
      | with every field                                |
      | with only the required fields                   |
      | with a field the schema does not know           |
      | with every nullable field null                  |
      | with every discriminator value                  |
      | with every integer written as a float           |
      | with every number in exponent form              |
      | with every string escaped and its keys reversed |
