"""The site's address and name, one for every process: settings read WEREWOLF_SITE_URL
(the environment, the env file) or the address `dev.py run` wrote under the var
directory; `migrate` records it in the sites framework's row with WEREWOLF_SITE_NAME;
a process that would put the built-in address in its links on a site that recorded
another refuses to start (`address.refusal`), and `check --deploy` asks for the address."""
