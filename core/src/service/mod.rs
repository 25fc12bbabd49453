//! Use cases that combine the rules with the ports; shared by the server and the CLI.
