// The store harness the store suites share (Tests/TestSupport), for every file of this target.
@_exported public import TestSupport
