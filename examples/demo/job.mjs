// A Job-style app: uses the proxy, does its work, exits. Its exit code becomes
// the container's, so the Job completes.
const PORT = Number(process.env.PROXY_PORT ?? 15021);

const response = await fetch(`http://127.0.0.1:${PORT}/orders/export`);
console.log(`job: proxy answered ${response.status}: ${(await response.text()).trim()}`);
console.log('job: exported 42 orders, exiting 0');
