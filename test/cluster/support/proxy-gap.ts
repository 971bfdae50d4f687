// The app of the scenarios where a proxy goes away and must come back: a
// Python program (every image of the tier's but the pause has python3) that
// asks the proxy's endpoint until it has seen it go and come back, then exits
// 0, or gives up after `giveUpSeconds` and exits 1, so a proxy nobody restarts
// fails the container. It asks every 20 ms: a refused connection is answered
// at once, and a restarted proxy takes longer than that to listen again, so
// the gap is seen. Its lines are JSON with `app: "gap"`: started (the first
// answer), waiting (once it starts asking), proxy-lost, proxy-back, gave-up.

export interface ProxyGapApp {
  /** The endpoint asked: answered 200 while the proxy is up. */
  readonly url: string;
  /** Waits for SIGTERM before it starts asking (an app that drains through the proxy). */
  readonly afterSigterm: boolean;
  readonly giveUpSeconds: number;
}

/** `python3 -c` source of the app. */
export function proxyGapApp({ url, afterSigterm, giveUpSeconds }: ProxyGapApp): string {
  return `
import json, signal, sys, time, urllib.request
def emit(event, **fields):
    sys.stdout.write(json.dumps({"app": "gap", "event": event, "t": int(time.time() * 1000), **fields}) + "\\n")
    sys.stdout.flush()
def ask():
    try:
        with urllib.request.urlopen(${JSON.stringify(url)}, timeout=1) as response:
            return "ok" if response.status == 200 else str(response.status)
    except Exception as error:
        return type(error).__name__
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
emit("started", proxy=ask())
if ${afterSigterm ? 'True' : 'False'}:
    signal.sigwait({signal.SIGTERM})
emit("waiting", proxy=ask())
lost = False
deadline = time.monotonic() + ${giveUpSeconds}
while time.monotonic() < deadline:
    answer = ask()
    if answer != "ok" and not lost:
        lost = True
        emit("proxy-lost", answer=answer)
    if answer == "ok" and lost:
        emit("proxy-back")
        sys.exit(0)
    time.sleep(0.02)
emit("gave-up", lost=lost)
sys.exit(1)
`;
}
