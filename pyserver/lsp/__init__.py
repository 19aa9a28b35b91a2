"""Language server: thin pygls handlers over pyserver.analysis."""
