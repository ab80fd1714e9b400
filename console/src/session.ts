import { createPlantStoreClient, PlantStoreError } from '@plantstore/client'
import type { PlantStoreClient } from '@plantstore/client'

// sessionStorage: gone when the tab closes, never sent anywhere by the browser, never in a URL.
const KEY = 'plantstore.console.token'

export const savedToken = () => sessionStorage.getItem(KEY)
export const saveToken = (token: string) => sessionStorage.setItem(KEY, token)
export const forgetToken = () => sessionStorage.removeItem(KEY)

export interface Me { name: string, scopes: string[], expiresAt: string | null }

/** What a scope unlocks: webhooks:admin holds webhooks:manage, as on the server. */
export function holds (me: Me, scope: string): boolean {
  return me.scopes.includes(scope) || (scope === 'webhooks:manage' && me.scopes.includes('webhooks:admin'))
}

/** A client of the service that served the page, with the token signed in. */
export const clientFor = (token: string): PlantStoreClient => createPlantStoreClient({ baseUrl: location.origin, token })

/** A failure as a person reads it: the service's own message, with its code. */
export function describe (error: unknown): string {
  if (error instanceof PlantStoreError) return `${error.message} (HTTP ${error.status}, code ${error.error})`
  return error instanceof Error ? error.message : String(error)
}

export const refused = (error: unknown) => error instanceof PlantStoreError && error.status === 401
export const statusOf = (error: unknown) => (error instanceof PlantStoreError ? error.status : 0)

/** A filter the service refused, as shown under its box (`… at character 8`); undefined for any other failure. */
export const filterErrorOf = (error: unknown) =>
  (error instanceof PlantStoreError && error.message.startsWith('query/filter: ') ? error.message.slice('query/filter: '.length) : undefined)
