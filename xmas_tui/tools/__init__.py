"""Tools beside the product, not part of it: the table and start-up benchmarks and the
screenshot scenes. Nothing in the product modules imports from here."""
