"""Integrity before prizes (issue 28): copied code, behavioural twins, shared accounts and thrown
games found, ranked and acted on by staff before a season's results are final."""
