"""Helpers the tests share, in one place: servers, models, records and submission folders that
tests of several folders build (`from support.serving import CountingProxy`)."""
