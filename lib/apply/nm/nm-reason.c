/* SPDX-License-Identifier: MIT */
/* NetworkManager's reasons for an active connection's state, in words for the person at the terminal. */

#include "apply/nm/nm-internal.h"

const char *nm_active_state_reason_to_string(unsigned reason) {
        /* The wording follows nmcli's, so that what halod says can be searched for. */
        switch ((NMActiveConnectionStateReason) reason) {
        case NM_ACTIVE_CONNECTION_STATE_REASON_UNKNOWN:
                return "unknown reason";
        case NM_ACTIVE_CONNECTION_STATE_REASON_NONE:
                return "no reason given";
        case NM_ACTIVE_CONNECTION_STATE_REASON_USER_DISCONNECTED:
                return "disconnected by the user";
        case NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_DISCONNECTED:
                return "the device was disconnected";
        case NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_STOPPED:
                return "the service providing the VPN connection was stopped";
        case NM_ACTIVE_CONNECTION_STATE_REASON_IP_CONFIG_INVALID:
                return "the IP configuration was invalid";
        case NM_ACTIVE_CONNECTION_STATE_REASON_CONNECT_TIMEOUT:
                return "the connection attempt timed out";
        case NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_START_TIMEOUT:
                return "a timeout occurred while starting the VPN service";
        case NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_START_FAILED:
                return "the VPN service failed to start";
        case NM_ACTIVE_CONNECTION_STATE_REASON_NO_SECRETS:
                return "no valid secrets were available";
        case NM_ACTIVE_CONNECTION_STATE_REASON_LOGIN_FAILED:
                return "invalid secrets were given";
        case NM_ACTIVE_CONNECTION_STATE_REASON_CONNECTION_REMOVED:
                return "the connection was removed";
        case NM_ACTIVE_CONNECTION_STATE_REASON_DEPENDENCY_FAILED:
                return "a connection it depends on failed";
        case NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_REALIZE_FAILED:
                return "the software device could not be created";
        case NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_REMOVED:
                return "the device was removed";
        }
        return "a reason this version of halod does not know";
}
