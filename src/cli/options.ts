import { Option } from 'commander'
import { SETTINGS } from '../config.js'
import type { RawConfig } from '../config.js'

/** The commander Option of a setting, with its PLANTSTORE_* twin and default shown in --help. */
export function settingOption (setting: keyof RawConfig): Option {
  const [flag, env, fallback, argument, help] = SETTINGS[setting]
  return new Option(`${flag} <${argument}>`, fallback === '' ? help : `${help} (default ${fallback})`).env(env)
}

export const databaseOption = () => settingOption('database')
