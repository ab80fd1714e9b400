import { Option } from 'commander'
import type { Command } from 'commander'
import { SETTINGS } from '../config/config.js'
import type { RawConfig } from '../config/config.js'

/** The commander Option of a setting, with its PLANTSTORE_* twin and default shown in --help. */
export function settingOption (setting: keyof RawConfig): Option {
  const { flag, env, fallback, argument, help } = SETTINGS[setting]
  // A true-or-false setting is a plain flag too: `--webhook-allow-private` alone means true.
  const value = argument === 'boolean' ? `[${argument}]` : `<${argument}>`
  return new Option(`${flag} ${value}`, fallback === '' ? help : `${help} (default ${fallback})`).env(env)
}

export const databaseOption = () => settingOption('database')
export const databasePasswordFileOption = () => settingOption('databasePasswordFile')

/**
 * Commander checks required options before unknown ones, so `tokens create --bogus` said "--name not
 * specified" and never named the bad flag. Required options are checked here instead, after parsing.
 */
export function checkRequiredOptions (program: Command) {
  const required = new Map<Command, Option[]>()
  const walk = (command: Command) => {
    const options = command.options.filter((option) => option.mandatory)
    for (const option of options) option.mandatory = false
    if (options.length > 0) required.set(command, options)
    command.commands.forEach(walk)
  }
  walk(program)
  program.hook('preAction', (_program, command) => {
    for (const option of required.get(command) ?? []) {
      if (command.getOptionValue(option.attributeName()) === undefined) command.error(`required option '${option.flags}' not specified`)
    }
  })
}
