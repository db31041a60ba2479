from audit.cli import console

console()
