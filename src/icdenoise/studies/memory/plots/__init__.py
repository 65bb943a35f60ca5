"""The memory study's drawings, one module per figure: `render(tables, **settings)` draws from the figure's
tables (input name → DataFrame) only, and each module's own imports are the figure's code input."""
