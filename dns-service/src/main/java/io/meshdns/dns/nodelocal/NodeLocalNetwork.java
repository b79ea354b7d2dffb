package io.meshdns.dns.nodelocal;

import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;

/**
 * Brings the machine to the {@link RuleSet}: checks the interface, its address and every rule, and adds
 * only what is missing (so the periodic check is cheap and puts back what someone flushed); removes
 * them on exit. Each step is one command through the {@link CommandRunner}.
 */
final class NodeLocalNetwork {
    private static final Logger LOG = Logger.getLogger(NodeLocalNetwork.class);

    private final NodeLocalSettings settings;
    private final RuleSet rules;
    private final CommandRunner runner;

    NodeLocalNetwork(NodeLocalSettings settings, RuleSet rules, CommandRunner runner) {
        this.settings = settings;
        this.rules = rules;
        this.runner = runner;
    }

    /** Adds what is missing; returns what it added (empty when all was in place). Throws when a step fails. */
    List<String> ensure() {
        List<String> added = new ArrayList<>();
        CommandRunner.Result link = runner.run(rules.showLink());
        if (!link.ok()) {
            CommandRunner.Result dummy = runner.run(rules.addLink());
            if (dummy.ok()) {
                added.add("interface " + settings.interfaceName());
            } else if (dummy.output().contains("Unknown device type")) {
                LOG.warnf("node-local: this kernel has no dummy interfaces; %s is an empty bridge instead", settings.interfaceName());
                must(rules.addLink("bridge"));
                added.add("interface " + settings.interfaceName() + " (bridge)");
            } else {
                throw new IllegalStateException("'" + rules.addLink() + "' failed (exit " + dummy.exitCode() + "): "
                        + dummy.output().trim());
            }
            link = runner.run(rules.showLink());
        }
        if (!rules.isUp(link.output())) {
            must(rules.linkUp());
            added.add("link up");
        }
        String held = must(rules.showAddresses());
        for (NodeLocalSettings.NodeAddress address : settings.addresses()) {
            if (!rules.hasAddress(held, address)) {
                must(rules.addAddress(address));
                added.add("address " + address.literal());
            }
        }
        switch (settings.rules()) {
            case IPTABLES -> {
                for (RuleSet.IptablesRule rule : rules.iptablesRules()) {
                    if (!runner.run(rules.checkRule(rule)).ok()) {
                        must(rules.insertRule(rule));
                        added.add((rule.ipv6() ? "ip6tables " : "iptables ") + rule.table() + " " + rule.chain() + " " + String.join(" ", rule.spec()));
                    }
                }
            }
            case NFTABLES -> {
                CommandRunner.Result listing = runner.run(rules.listNftTable());
                if (!listing.ok() || !rules.nftComplete(listing.output())) {
                    must(rules.replaceNftTable());
                    added.add("nftables table inet " + RuleSet.NFT_TABLE);
                }
            }
            case NONE -> {
                // the operator manages the rules
            }
        }
        return added;
    }

    /** Removes the rules and the interface; logs (does not throw) what could not be removed. */
    void remove() {
        switch (settings.rules()) {
            case IPTABLES -> {
                for (RuleSet.IptablesRule rule : rules.iptablesRules()) {
                    // -D removes one copy; a rule inserted twice (by hand, or a crashed run) is removed until none is left.
                    for (int i = 0; i < 10 && runner.run(rules.checkRule(rule)).ok(); i++) {
                        tryRun(rules.deleteRule(rule));
                    }
                }
            }
            case NFTABLES -> {
                if (runner.run(rules.listNftTable()).ok()) {
                    tryRun(rules.deleteNftTable());
                }
            }
            case NONE -> {
                // nothing of ours
            }
        }
        if (runner.run(rules.showLink()).ok()) {
            tryRun(rules.deleteLink());
        }
    }

    private String must(Command command) {
        CommandRunner.Result r = runner.run(command);
        if (!r.ok()) {
            throw new IllegalStateException("'" + command + "' failed (exit " + r.exitCode() + "): " + r.output().trim());
        }
        return r.output();
    }

    private void tryRun(Command command) {
        CommandRunner.Result r = runner.run(command);
        if (!r.ok()) {
            LOG.warnf("node-local: '%s' failed (exit %d): %s", command, r.exitCode(), r.output().trim());
        }
    }
}
