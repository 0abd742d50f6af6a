// Placeholder translation unit so ecmo::adapters always has a source.
