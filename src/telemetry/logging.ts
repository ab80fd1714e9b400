import pino from 'pino'

/**
 * stdout for the JSON log, buffered by pino's own destination (SonicBoom): lines are written 8 KiB at
 * a time (and at least every second), not one write(2) per request, each chunk at once from this
 * thread, so that a log reader that falls behind slows the service rather than growing its memory.
 * What is left is written when the process exits, SIGTERM included; a SIGKILL may lose the last lines.
 */
export function bufferedStdout (): pino.DestinationStream {
  // One per process, as stdout is: an app built again in the same process (tests, an embedding) shares
  // it, instead of adding a timer and an exit listener each time.
  stdout ??= startBufferedStdout()
  return stdout
}

let stdout: ReturnType<typeof pino.destination> | undefined

function startBufferedStdout () {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 8192 })
  setInterval(() => { destination.flush() }, 1000).unref()
  // pino flushes on exit only the destinations it writes asynchronously.
  process.once('exit', () => { destination.flushSync() })
  return destination
}
