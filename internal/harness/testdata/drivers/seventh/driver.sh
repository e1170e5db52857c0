#!/bin/sh
# A stand-in seventh language for TestSeventhLanguage: no new SDK exists to drive, so this
# driver runs the prepared Go driver (the real Go SDK) and names itself "seventh" in its hello.
# What the test shows is the harness side: a language is its driver folder plus its recipe.
"$@" | sed -u 's/"sdk":"go"/"sdk":"seventh"/'
