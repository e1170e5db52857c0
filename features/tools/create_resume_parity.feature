@requires.session.resume
Feature: session.resume sends the same tool definitions as session.create
  An application that resumes a session passes its tools again. For the same tool definitions,
  the tools array of session.resume equals that of session.create after normalization, with
  isTerminal beside the other tool options, and isTerminal independent of metadata.

  @requires.tool.skipPermission @requires.tool.overridesBuiltInTool
  Scenario: tools without options are sent the same way on create and resume
    Given the tools:
      | name   | skipPermission | overridesBuiltInTool |
      | search | true           |                      |
      | grep   |                | true                 |
      | plain  |                |                      |
    When a session is created with the tools
    And the session is resumed with the tools
    Then the tools of the "session.resume" request equal the tools of the "session.create" request
    And the tool "plain" in the "session.resume" request has no key "isTerminal"

  @requires.tool.isTerminal @requires.tool.defer @requires.tool.metadata
  @requires.tool.skipPermission @requires.tool.overridesBuiltInTool
  Scenario: every tool option is sent the same way on create and resume
    Given the tools:
      | name   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata           |
      | finish | true       | never |                |                      |                    |
      | search |            | auto  | true           |                      | {"team": "docs"}   |
      | grep   | true       |       |                | true                 | {"k": 1}           |
      | plain  |            |       |                |                      |                    |
    When a session is created with the tools
    And the session is resumed with the tools
    Then the tools of the "session.resume" request equal the tools of the "session.create" request
    And the tool "finish" in the "session.resume" request has "isTerminal" equal to true
    And the tool "grep" in the "session.resume" request has "isTerminal" equal to true
    And the tool "search" in the "session.resume" request has no key "isTerminal"
    And the tool "plain" in the "session.resume" request has no key "isTerminal"

  @requires.tool.isTerminal @requires.tool.defer @requires.tool.metadata
  @requires.tool.skipPermission @requires.tool.overridesBuiltInTool
  Scenario: isTerminal beside defer, metadata, skipPermission and overridesBuiltInTool on resume
    Given the tools:
      | name | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata       |
      | all  | true       | never | true           | true                 | {"owner": "a"} |
    When the session is resumed with the tools
    Then the tool "all" in the "session.resume" request has "isTerminal" equal to true
    And the tool "all" in the "session.resume" request has "defer" equal to "never"
    And the tool "all" in the "session.resume" request has "skipPermission" equal to true
    And the tool "all" in the "session.resume" request has "overridesBuiltInTool" equal to true
    And the tool "all" in the "session.resume" request has "metadata" equal to {"owner": "a"}

  @requires.tool.isTerminal @requires.tool.metadata
  Scenario: isTerminal is independent of metadata
    Given the tools:
      | name | isTerminal | metadata              |
      | a    | true       | {"isTerminal": false} |
      | b    |            | {"isTerminal": true}  |
    When a session is created with the tools
    And the session is resumed with the tools
    Then the tools of the "session.resume" request equal the tools of the "session.create" request
    And the tool "a" in the "session.resume" request has "isTerminal" equal to true
    And the tool "a" in the "session.resume" request has "metadata" equal to {"isTerminal": false}
    And the tool "b" in the "session.resume" request has no key "isTerminal"
    And the tool "b" in the "session.resume" request has "metadata" equal to {"isTerminal": true}
