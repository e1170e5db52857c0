Feature: Replacing a session's tools
  An application can replace the complete set of tools it supplies to a live session
  (session.tools.set). The tool entries have the same shape as in session.create, isTerminal
  included; an empty list removes every tool; after a replacement, calls go to the new handlers;
  when the runtime rejects a replacement the SDK raises and the old tools keep serving; and
  replacements made at once reach the runtime one at a time, in order. An SDK version that has only
  the generated raw RPC runs what it can: the empty list.

  @requires.session.rpc.tools.set
  Scenario: an empty replacement through the generated RPC is sent as an empty list
    Given a session is created with no tools
    When the tools are replaced through the generated RPC with no tools
    Then the "session.tools.set" request has "tools" equal to []

  @requires.session.rpc.tools.set @requires.session.rpc.tools.set.nil
  Scenario: a Go application naturally writes nil for no tools, and the raw RPC still sends a list
    Given a session is created with no tools
    When the tools are replaced through the generated RPC with the language's nil list
    Then the "session.tools.set" request has "tools" equal to []

  @requires.session.setTools @requires.tool.isTerminal @requires.tool.defer @requires.tool.skipPermission
  @requires.tool.metadata
  Scenario: replacement tools have the same shape as the tools of session.create
    Given the tools:
      | name   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata         |
      | finish | true       | never |                |                      |                  |
      | search |            | auto  | true           |                      | {"team": "docs"} |
    When a session is created with the tools
    And the tools are replaced with:
      | name   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata         |
      | finish | true       | never |                |                      |                  |
      | search |            | auto  | true           |                      | {"team": "docs"} |
    Then the tools of the "session.tools.set" request equal the tools of the "session.create" request
    And the tool "finish" in the "session.tools.set" request has "isTerminal" equal to true
    And no key "is_terminal" appears anywhere in the "session.tools.set" request

  @requires.session.setTools
  Scenario: an empty replacement is sent as an empty list
    Given a tool "search"
    When a session is created with the tools
    And the tools are replaced with no tools
    Then the "session.tools.set" request has "tools" equal to []

  @requires.session.setTools
  Scenario: after a replacement, calls go to the new handler
    Given a tool "search" that returns "old results" as "v1"
    When a session is created with the tools
    And the tools are replaced with:
      | name   | handler                         |
      | search | returns "new results" as "v2"   |
    And the model calls the tool "search"
    And the prompt "search" is sent and the SDK waits for the reply
    Then the session id the SDK reported is the "sessionId" of the "session.tools.set" request
    And the "session.tools.set" request has "tools[0].name" equal to "search"
    And the SDK answered the call to "search" with the text "new results"
    And the handler "v2" served the call to "search"

  @requires.session.setTools
  Scenario: a rejected replacement raises and the old tools keep serving
    Given a tool "search" that returns "old results" as "v1"
    When a session is created with the tools
    And the runtime rejects the next tool replacement with "tool set too large"
    And the application tries to replace the tools with:
      | name   | handler                         |
      | search | returns "new results" as "v2"   |
    Then the SDK raised an error mentioning "tool set too large"
    When the model calls the tool "search"
    And the prompt "search" is sent and the SDK waits for the reply
    Then the SDK answered the call to "search" with the text "old results"
    And the handler "v1" served the call to "search"

  @requires.session.setTools
  Scenario: replacements made at once reach the runtime one at a time, in order
    Given a session is created with no tools
    And the runtime takes 150 ms to answer each tool replacement
    When the tools are replaced 3 times at once
    Then the "session.tools.set" requests reached the runtime one at a time in the order they were made
