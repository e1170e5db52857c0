@requires.tool.isTerminal @requires.tool.defer @requires.tool.metadata
@requires.tool.skipPermission @requires.tool.overridesBuiltInTool
Feature: Each tool carries exactly the options the application set on it
  Checked on whole definitions, not single keys: a tool in session.create, session.resume and
  session.tools.set carries exactly the options the application set on that tool (plus the
  documented defaults), and nothing else, so an option leaking onto another tool, an option
  dropped, or a key the application never set fails.

  Scenario: whole tool definitions on create
    Given the tools:
      | name   | description   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata         |
      | finish | Ends the turn | true       |       |                |                      |                  |
      | search | Searches      |            | auto  | true           |                      | {"team": "docs"} |
      | grep   | Greps         |            |       |                | true                 |                  |
      | plain  | Plain         |            |       |                |                      |                  |
    When a session is created with the tools
    Then the tools of the "session.create" request are exactly:
      | name   | description   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata         |
      | finish | Ends the turn | true       |       |                |                      |                  |
      | search | Searches      |            | auto  | true           |                      | {"team": "docs"} |
      | grep   | Greps         |            |       |                | true                 |                  |
      | plain  | Plain         |            |       |                |                      |                  |

  @requires.session.resume
  Scenario: whole tool definitions on resume
    Given the tools:
      | name   | description   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata     |
      | finish | Ends the turn | true       | never |                |                      | {"k": 1}     |
      | search | Searches      |            |       | true           | true                 |              |
      | plain  | Plain         |            |       |                |                      |              |
    When the session is resumed with the tools
    Then the tools of the "session.resume" request are exactly:
      | name   | description   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata     |
      | finish | Ends the turn | true       | never |                |                      | {"k": 1}     |
      | search | Searches      |            |       | true           | true                 |              |
      | plain  | Plain         |            |       |                |                      |              |

  @requires.session.setTools
  Scenario: whole tool definitions on a tool replacement
    Given a tool "old"
    And a session is created with the tools
    When the tools are replaced with:
      | name   | description   | isTerminal | defer | metadata        |
      | finish | Ends the turn | true       |       |                 |
      | search | Searches      |            | auto  | {"team": "a"}   |
      | plain  | Plain         |            |       |                 |
    Then the tools of the "session.tools.set" request are exactly:
      | name   | description   | isTerminal | defer | metadata        |
      | finish | Ends the turn | true       |       |                 |
      | search | Searches      |            | auto  | {"team": "a"}   |
      | plain  | Plain         |            |       |                 |
