import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { PlantStoreClient, StoreEvent } from '@plantstore/client'
import type { Me } from './session.js'

export interface Console {
  client: PlantStoreClient
  me: Me
  /** Follows the store's events while the caller is mounted; answers the unsubscribe. */
  onEvent: (listener: (event: StoreEvent) => void) => () => void
  /** Reports a failure: a refused token signs out, anything else is announced. */
  fail: (error: unknown) => void
  announce: (message: string) => void
}

export const ConsoleContext = createContext<Console | null>(null)
export const useConsole = () => useContext(ConsoleContext)!
