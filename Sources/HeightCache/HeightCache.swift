// The `HeightCache` module of earlier releases, kept so that `import HeightCache` goes on working: it
// re-exports the two modules that now hold what it held. Import those instead:
// - `ListLayout`: `HeightCache` (heights from any closure), `ListHeights`, `ListSnapshot`, `ListChanges`,
//   `ListUpdater`, `OffsetTree` — no text engine, no C library;
// - `TextRows`: `RowLayout` and `HeightCache(layout:measurer:)`, rows of text measured by `TextMeasure`.
@_exported import ListLayout
@_exported import TextRows
