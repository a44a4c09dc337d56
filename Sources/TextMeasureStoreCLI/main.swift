import TextMeasureCommands

// `textmeasure-store`: the `textmeasure` commands with the SQLite height store linked in.
// `textmeasure batch|measure --store` and `textmeasure store` run this executable.
HeightStoreAccess.install(SQLiteHeightStoreLink())
TextMeasureCommand.main()
