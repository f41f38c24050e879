package websub

// FeedID is feedID, for the tests of package websub_test.
var FeedID = feedID
