# bash completion for aggregatorctl (installed to share/bash-completion/completions/aggregatorctl)
_aggregatorctl() {
    local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]}
    local commands="status feeds categories add remove rename move edit rename-category import export refresh articles search show read unread star unstar watch backup user token parse help"
    case $previous in
        --socket|--user|--url|--content-type|--content-language|--since|--before|--limit|--cursor|--title|--search|--max-size|--block|--keep|--scraper) return ;;
        --disabled|--hide-globally|--ignore-cache|--self-signed|--crawler) COMPREPLY=($(compgen -W "on off" -- "$current")); return ;;
        --sort) COMPREPLY=($(compgen -W "newest oldest title relevance" -- "$current")); return ;;
        import|export|backup|parse) COMPREPLY=($(compgen -f -- "$current")); return ;;
    esac
    local command="" word
    for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
        [[ " $commands " == *" $word "* ]] && { command=$word; break; }
    done
    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "$commands --socket --user --json --help --version" -- "$current"))
        return
    fi
    local selection="--category --feed --unread --starred --since --before --search"
    local filters="$selection --sort --limit --cursor"
    case $command in
        feeds) COMPREPLY=($(compgen -W "--category --failing --json" -- "$current")) ;;
        add) COMPREPLY=($(compgen -W "--category --title --json" -- "$current")) ;;
        edit) COMPREPLY=($(compgen -W "--title --category --disabled --hide-globally --block --keep --scraper --user-agent --username --password-stdin --cookie-stdin --ignore-cache --self-signed --crawler --json" -- "$current")) ;;
        refresh) COMPREPLY=($(compgen -W "--wait --json" -- "$current")) ;;
        articles|search) COMPREPLY=($(compgen -W "$filters --json" -- "$current")) ;;
        watch) COMPREPLY=($(compgen -W "$selection --json" -- "$current")) ;;
        read|unread|star|unstar) COMPREPLY=($(compgen -W "--all $selection" -- "$current")) ;;
        parse) COMPREPLY=($(compgen -W "--json --url --content-type --content-language --max-size" -- "$current")) ;;
        user) [[ $previous == user ]] && COMPREPLY=($(compgen -W "list show add set rename remove admin fever" -- "$current")) ;;
        token) [[ $previous == token ]] && COMPREPLY=($(compgen -W "create list revoke" -- "$current")) ;;
        help) COMPREPLY=($(compgen -W "$commands" -- "$current")) ;;
    esac
}
complete -o default -F _aggregatorctl aggregatorctl
