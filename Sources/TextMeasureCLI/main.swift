import TextMeasureCommands

// `textmeasure`: the commands without the height store, which `--store` and `store` find in
// `textmeasure-store` (see HeightStoreLink).
TextMeasureCommand.main()
