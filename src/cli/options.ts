import { Option } from 'commander'
import { SETTINGS } from '../config.js'
import type { RawConfig } from '../config.js'

/** The commander Option of a setting, with its PLANTSTORE_* twin and default shown in --help. */
export function settingOption (setting: keyof RawConfig, argument: string, description: string): Option {
  const [flag, env, fallback] = SETTINGS[setting]
  return new Option(`${flag} <${argument}>`, `${description} (default ${fallback})`).env(env)
}

export const databaseOption = () => settingOption('database', 'url', 'sqlite:PATH, sqlite::memory: or postgres://…')
