"""The test suite, laid out like the packages it tests."""
