import FeedParser
import Testing

@Suite struct FeedDateParserTests {
    private func utc(_ text: String) -> String? {
        FeedDateParser.secondsSinceEpoch(from: text).map { rfc3339(secondsSinceEpoch: $0) }
    }

    @Test(arguments: [
        ("Thu, 01 Jan 2004 19:48:21 GMT", "2004-01-01T19:48:21Z"),
        ("tue, 10 jun 2003 04:00:00 gmt", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 EDT", "2003-06-10T08:00:00Z"),
        ("Tue, 10 Jun 2003 04:00 +0530", "2003-06-09T22:30:00Z"),
        ("Thu, 01 Jan 04 19:48:21 GMT", "2004-01-01T19:48:21Z"),
        ("Thu,  5 Apr 2012 10:00:00 GMT", "2012-04-05T10:00:00Z"),
        ("Wed, 19 Aug 2009 18:28:00 Etc/GMT", "2009-08-19T18:28:00Z"),
        ("Wed, 19 Feb 2012 22:40:00 GMT-01:01", "2012-02-19T23:41:00Z"),
        ("Mon, 13 Feb, 2012 06:28:00 UTC", "2012-02-13T06:28:00Z"),
        ("Thu, 01 Jan 2004", "2004-01-01T00:00:00Z"),
        ("Tuesday, 10 June 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("Mon, 26 January 2004 16:31:00 PT", "2004-01-27T00:31:00Z"),
        ("Thu Aug 30 2012 17:26:16 +0200", "2012-08-30T15:26:16Z"),
        ("Thu, 30 Apr 2015 08:57:00 MEST", "2015-04-30T06:57:00Z"),
        ("Sat, 01 Jan 2000 00:00:00 +1400", "1999-12-31T10:00:00Z"),
    ])
    func rfc822AndItsCorruptions(text: String, expected: String) {
        #expect(utc(text) == expected)
    }

    @Test(arguments: [
        ("2003-12-31T10:14:55Z", "2003-12-31T10:14:55Z"),
        ("2003-12-31T10:14:55-08:00", "2003-12-31T18:14:55Z"),
        ("2007-04-23T23:25:47.538+10:00", "2007-04-23T13:25:47Z"),
        ("2003-12-31", "2003-12-31T00:00:00Z"),
        ("2003-12", "2003-12-01T00:00:00Z"),
        ("2003", "2003-01-01T00:00:00Z"),
        ("2004-07-08 23:56:58 -00:20", "2004-07-09T00:16:58Z"),
        ("2004-07-08 23:56:58", "2004-07-08T23:56:58Z"),
        ("2003-06-10T04:00:00+0200", "2003-06-10T02:00:00Z"),
        ("2003-12-31T25:14:55Z", "2004-01-01T01:14:55Z"),
        ("20030610T040000Z", "2003-06-10T00:00:00Z"),
        ("03335", "2003-12-01T00:00:00Z"),
        ("2013-01-28T11:30:00-06:00Textra", "2013-01-28T17:30:00Z"),
    ])
    func w3dtfAndISO8601(text: String, expected: String) {
        #expect(utc(text) == expected)
    }

    @Test(arguments: [
        ("Sun Jan  4 16:29:06 2004", "2004-01-04T16:29:06Z"),
        ("Sun Jul 15 01:16:00 +0000 2012", "2012-07-15T01:16:00Z"),
        ("Fri, 2006/09/15 08:19:53 EDT", "2006-09-15T12:19:53Z"),
        ("Κυρ, 11 Ιούλ 2004 12:00:00 EST", "2004-07-11T17:00:00Z"),
        ("2004-július-13T9:15-05:00", "2004-07-13T14:15:00Z"),
    ])
    func asctimePerforceAndLocalisedForms(text: String, expected: String) {
        #expect(utc(text) == expected)
    }

    /// The numeric forms of Chinese, Japanese and Korean sites; without a zone, UTC.
    @Test(arguments: [
        ("2020/1/10 14:33:00", "2020-01-10T14:33:00Z"),
        ("2020/01/10", "2020-01-10T00:00:00Z"),
        ("2020-01-10 14:33", "2020-01-10T14:33:00Z"),
        ("2020.01.10", "2020-01-10T00:00:00Z"),
        ("2020.1.10 9:05", "2020-01-10T09:05:00Z"),
        ("2020年1月10日 14:33", "2020-01-10T14:33:00Z"),
        ("2020年01月10日", "2020-01-10T00:00:00Z"),
        ("2020/1/10 14:33:00 +0800", "2020-01-10T06:33:00Z"),
        ("2020/1/10 14:33:00+08:00", "2020-01-10T06:33:00Z"),
        ("2020/1/10 14:33:00.250 Z", "2020-01-10T14:33:00Z"),
        ("2020/1/10T14:33 GMT", "2020-01-10T14:33:00Z"),
    ])
    func numericFormsOfCJKSites(text: String, expected: String) {
        #expect(utc(text) == expected)
    }

    @Test(arguments: [
        "2020/13/10", "2020/2/30", "2020/1/10 24:00", "2020/1/10 14:3", "2020/1-10", "2020年1月10", "20/1/10",
        "2020/1/10 14:33 +8:00:00", "2020/1/10 14:33 later", "2020/001/10",
    ])
    func malformedNumericFormsAreNil(text: String) {
        #expect(FeedDateParser.date(from: text) == nil)
    }

    @Test(arguments: [
        "not a date", "", "Tue, 10 Jun 2003 04:00:00", "Tue, 31 Jun 2003 04:00:00 GMT",
        "Sun, 16 Dec 2012 1:2:3:4 GMT", "Sun, 99 Jun 2009 12:00:00 GMT", "9999-12-31T23:59:59-99:99",
        "Sun, 31 Dec 9999 23:59:59 -9999", "013",
    ])
    func unreadableOrOutOfRangeIsNil(text: String) {
        #expect(FeedDateParser.date(from: text) == nil)
    }

    /// feedparser fills a missing month from the clock ("2013-xx-27" became 2013-<this month>-01);
    /// we never invent a date from "now": such values are nil.
    @Test(arguments: ["2013-xx-27", "2004년 05월 28일  01:31:15"])
    func partialDatesAreNeverCompletedFromTheClock(text: String) {
        #expect(FeedDateParser.date(from: text) == nil)
    }

    /// Found by fuzzing: a year of 17 digits overflowed the day count and stopped the process, and
    /// so did a zone offset with that many minutes.
    @Test(arguments: ["Sun,22 Nov 1920126249902624 0 ,", "Sun, 22 Nov 9223372036854775807 10:00:00 GMT",
                      "9999999999999-01-01T00:00:00Z", "2004-99999999999-01",
                      "2004\r4--23333333166666666663Z", "2004-01-01T00:00:00+01:99999999999999999",
                      "Sun, 22 Nov 2004 10:00:00 +01:99999999999999999"])
    func absurdYearsDoNotCrash(text: String) {
        _ = FeedDateParser.date(from: text)
        _ = FeedDateParser.secondsSinceEpoch(from: text)
    }

    @Test func outputIsRFC3339UTCWithPaddedYears() {
        #expect(rfc3339(secondsSinceEpoch: 0) == "1970-01-01T00:00:00Z")
        #expect(utc("Thu, 01 Jan 0100 00:00:01 +0100") == "0099-12-31T23:00:01Z")
    }
}
