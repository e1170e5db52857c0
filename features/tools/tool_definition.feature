Feature: A tool definition carries the application's name, description and parameters
  Whatever else differs between SDKs, the runtime needs each tool's name, its description and its
  parameters' JSON Schema exactly as the application gave them, on create and on resume.

  Scenario Outline: name, description and parameters are sent as given on <request>
    Given the tools:
      | name   | description              | parameters                                                                               |
      | search | Search the current page  | {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}  |
    When the session is <action> with the tools
    Then the tool "search" in the "<request>" request has "name" equal to "search"
    And the tool "search" in the "<request>" request has "description" equal to "Search the current page"
    And the tool "search" in the "<request>" request has "parameters" equal to {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}

    Examples:
      | request        | action  |
      | session.create | created |

    @requires.session.resume
    Examples:
      | request        | action  |
      | session.resume | resumed |

  Scenario Outline: every tool is sent, in the order given, on <request>
    Given the tools:
      | name  |
      | alpha |
      | beta  |
      | gamma |
    When the session is <action> with the tools
    Then the "<request>" request has "tools[0].name" equal to "alpha"
    And the "<request>" request has "tools[1].name" equal to "beta"
    And the "<request>" request has "tools[2].name" equal to "gamma"
    And the "<request>" request has no key "tools[3]"

    Examples:
      | request        | action  |
      | session.create | created |

    @requires.session.resume
    Examples:
      | request        | action  |
      | session.resume | resumed |
