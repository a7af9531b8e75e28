"""Programs as players: the line protocol, the processes and their leash, program seats at runtime
tables (driver, seats) and the contest command line (arena, which the runtime core never imports)."""
