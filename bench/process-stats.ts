import { readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

/** Resident memory of a process now, in MiB. */
export function rssMiB (pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? 0 : Number(match[1]) / 1024
}

/** Samples a process while `during` runs: CPU seconds used and peak RSS. */
export async function measure<T> (pid: number, during: () => Promise<T>) {
  const cpuBefore = cpuSeconds(pid)
  let peak = rssMiB(pid)
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid)) }, 100)
  try {
    const result = await during()
    return { result, cpuSeconds: cpuSeconds(pid) - cpuBefore, peakRssMiB: Math.max(peak, rssMiB(pid)) }
  } finally {
    clearInterval(sampler)
  }
}
