"""Rule plugins: pure rules engines plus bindings that map table operations onto engine actions."""
