import { Option } from 'commander'
import { SETTINGS } from '../config.js'
import type { RawConfig } from '../config.js'

/** The commander Option of a setting, with its PLANTSTORE_* twin and default shown in --help. */
export function settingOption (setting: keyof RawConfig): Option {
  const [flag, env, fallback, argument, help] = SETTINGS[setting]
  // A true-or-false setting is a plain flag too: `--webhook-allow-private` alone means true.
  const value = argument === 'boolean' ? `[${argument}]` : `<${argument}>`
  return new Option(`${flag} ${value}`, fallback === '' ? help : `${help} (default ${fallback})`).env(env)
}

export const databaseOption = () => settingOption('database')
