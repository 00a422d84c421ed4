// Our container tests run where no registry is reachable, so testcontainers' reaper (Ryuk) cannot
// be pulled; GatewayContainer and the tests remove what they start themselves (docs/adr/0055).
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
