"""Build recipes (``build_prepare.recipe``, protocol §4): models and schema, the server-exact compiler, lint, fmt.

* :mod:`mcb.recipes.compile` — ``compile_recipe`` / ``compile_geometry`` / ``canonicalize_states``, ``RecipeRejected``
  (used by ``mcb recipe compile`` and by the local reference server's ``build_prepare``);
* :mod:`mcb.recipes.model` — pydantic models and the published JSON Schema (``recipes/recipe.schema.json``);
* :mod:`mcb.recipes.lint` / :mod:`mcb.recipes.lint_files` — ``mcb recipe lint``;
* :mod:`mcb.recipes.jsonpos` — the strict JSON parser that keeps line:column for every JSON pointer;
* :mod:`mcb.recipes.fmt` — canonical layout; :mod:`mcb.recipes.export` / :mod:`mcb.recipes.outputs` — .schem/.png.

Nothing heavy is imported here.
"""
