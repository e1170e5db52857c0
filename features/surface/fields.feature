Feature: Every session config field the SDK declares reaches the request, as the application set it
  The application's surface is the SDK's own: its driver reads every field of the session config
  types from the SDK's declarations (the .d.ts, reflection, introspection, the crate source), so
  no list here can lag the SDK. Each field is set alone with values generated from its declared
  type (a non-ASCII string; true and false where false can be told from "not set"; a non-empty
  list and []; an enum's first value), on create and on resume. The value must reach the
  session.create / session.resume request under one key, unchanged, and nothing else in the
  request may change; a field sent for one value must be sent for every value (an empty list or
  an explicit false is not dropped), under the same key on create and on resume. Where each
  field went is compared across SDKs (the report's field × SDK matrix); a field only some SDKs
  declare is informational. Fields whose type has no value generator yet (objects, maps, lists
  of objects) and handlers are listed in the transcript, not checked here.

  @requires.surface @requires.session.resume
  Scenario: every declared session config field, set alone, reaches session.create and session.resume unchanged
    When every session config field the SDK declares is set alone, on create and on resume, with values generated from its type
    Then each value reaches its request under one key, unchanged, and nothing else in the request changes
