"""The `meteors-judge` console command: one subcommand module per job."""
