package org.gpusched.powerflow.policy;

import java.util.Locale;

/** The command-line names of PowerFlow's setting enums: lower case with '-' for '_', read back ignoring case. */
final class EnumLabels {
    private EnumLabels() {}

    static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} whose label is {@code label}; else an error listing the labels ("a, b or c"). */
    static <E extends Enum<E>> E parse(Class<E> type, String label) {
        E[] constants = type.getEnumConstants();
        for (E e : constants) if (of(e).equalsIgnoreCase(label.trim())) return e;
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < constants.length; i++) {
            if (i > 0) expected.append(i == constants.length - 1 ? " or " : ", ");
            expected.append(of(constants[i]));
        }
        throw new IllegalArgumentException("'" + label + "' is not " + expected);
    }
}
