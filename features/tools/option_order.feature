@requires.tool.isTerminal
Feature: isTerminal survives the options set after it
  The original change had to thread isTerminal through every fluent copy method (Java) so that
  setting another option afterwards did not drop it. The driver applies the tool options in the
  order the scenario gives, isTerminal first; it must still be on the wire, on every SDK.

  Scenario Outline: isTerminal set before <later> is still sent on <request>
    Given the tools:
      | name   | isTerminal | <later>  | optionOrder          |
      | finish | true       | <value>  | isTerminal, <later>  |
    When the session is <action> with the tools
    Then the tool "finish" in the "<request>" request has "isTerminal" equal to true

    @requires.tool.metadata
    Examples:
      | later          | value            | request        | action  |
      | metadata       | {"owner": "a"}   | session.create | created |

    @requires.tool.defer
    Examples:
      | later          | value            | request        | action  |
      | defer          | never            | session.create | created |

    @requires.tool.skipPermission
    Examples:
      | later          | value            | request        | action  |
      | skipPermission | true             | session.create | created |

    @requires.tool.metadata @requires.session.resume
    Examples:
      | later          | value            | request        | action  |
      | metadata       | {"owner": "a"}   | session.resume | resumed |

    @requires.tool.defer @requires.session.resume
    Examples:
      | later          | value            | request        | action  |
      | defer          | never            | session.resume | resumed |

    @requires.tool.skipPermission @requires.session.resume
    Examples:
      | later          | value            | request        | action  |
      | skipPermission | true             | session.resume | resumed |

  @requires.session.resume @requires.tool.metadata @requires.tool.defer @requires.tool.skipPermission
  Scenario: isTerminal set first, then metadata, defer and skipPermission
    Given the tools:
      | name   | isTerminal | metadata       | defer | skipPermission | optionOrder                                    |
      | finish | true       | {"owner": "a"} | never | true           | isTerminal, metadata, defer, skipPermission    |
    When a session is created with the tools
    And the session is resumed with the tools
    Then the tool "finish" in the "session.create" request has "isTerminal" equal to true
    And the tool "finish" in the "session.resume" request has "isTerminal" equal to true
    And the tool "finish" in the "session.create" request has "skipPermission" equal to true
    And the tool "finish" in the "session.resume" request has "defer" equal to "never"
