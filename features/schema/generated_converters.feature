@sweep
Feature: The generated layer's public converters round-trip
  Every SDK's generated types come with converters an application may call itself (Python's
  from_dict / to_dict, Go's JSON marshalling, Rust's serde, Java's Jackson, .NET's
  System.Text.Json). For every object type of the runtime's schemas the SDK generates, a value
  built by name as an application writes it, converted to JSON, must be that value as the schema
  writes it (valid against the type's definition), and the converter from JSON must read that
  JSON back as the same value. Node's TypeScript types have no converters at run time.

  @requires.convert.roundtrip
  Scenario Outline: every generated type round-trips through the SDK's public converters, <variant>
    When the application builds every object type of the runtime's schemas by name, <variant>, and converts each to JSON and back with the SDK's public converters
    Then each type's JSON is the value as the schema writes it
    And each type reads back from its JSON as the same value

    Examples:
      | variant                        |
      | with every field               |
      | with only the required fields  |
      | with every nullable field null |
      | with every union alternative   |
