package io.txlock.cdi;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * A lock name template of {@link Locked}, compiled against one method: literal parts and placeholders whose
 * parameter and properties were resolved on the method's declared types, so that a bad template fails once, at
 * deployment, and a call only reads values.
 */
final class NameTemplate {

    private final String template;
    private final String where;
    private final List<Part> parts;

    private NameTemplate(String template, String where, List<Part> parts) {
        this.template = template;
        this.where = where;
        this.parts = parts;
    }

    /**
     * @param template the template
     * @param method the method it names locks for; null for a class-level template, which may not have placeholders
     * @param where the annotated element, for messages
     * @return the compiled template
     * @throws IllegalArgumentException saying what is wrong and how to fix it
     */
    static NameTemplate compile(String template, Method method, String where) {
        String in = "@Locked(\"" + template + "\") on " + where;
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException(in + ": the lock name must not be blank");
        }
        List<Part> parts = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            int close = template.indexOf('}', i);
            if (close >= 0 && (open < 0 || close < open)) {
                throw new IllegalArgumentException(in + ": unmatched '}' at index " + close + " (braces only enclose"
                        + " placeholders such as {0} or {order.number})");
            }
            if (open < 0) {
                parts.add(new Literal(template.substring(i)));
                break;
            }
            if (open > i) {
                parts.add(new Literal(template.substring(i, open)));
            }
            int end = template.indexOf('}', open);
            int nested = template.indexOf('{', open + 1);
            if (end < 0 || (nested >= 0 && nested < end)) {
                throw new IllegalArgumentException(in + ": unclosed '{' at index " + open);
            }
            if (method == null) {
                throw new IllegalArgumentException(in + ": a class-level name cannot have placeholders; put @Locked with"
                        + " '" + template.substring(open, end + 1) + "' on the methods");
            }
            parts.add(placeholder(template.substring(open + 1, end).strip(), method, in));
            i = end + 1;
        }
        return new NameTemplate(template, where, List.copyOf(parts));
    }

    /**
     * @param arguments the call's arguments
     * @return the lock name
     * @throws IllegalArgumentException if a value on the path is null
     */
    String render(Object[] arguments) {
        StringBuilder name = new StringBuilder();
        for (Part part : parts) {
            part.append(name, arguments, this);
        }
        return name.toString();
    }

    @Override
    public String toString() {
        return template;
    }

    private static Part placeholder(String expression, Method method, String in) {
        if (expression.isEmpty()) {
            throw new IllegalArgumentException(in + ": empty placeholder {}; name a parameter, e.g. {0} or {order.number}");
        }
        String[] path = expression.split("\\.", -1);
        Parameter[] parameters = method.getParameters();
        int index = parameterIndex(path[0], parameters, in);
        Class<?> type = parameters[index].getType();
        List<Member> accessors = new ArrayList<>();
        for (int p = 1; p < path.length; p++) {
            Member accessor = accessor(type, path[p]);
            if (accessor == null) {
                throw new IllegalArgumentException(in + ": {" + expression + "}: " + type.getName() + " has no public"
                        + " property '" + path[p] + "' (a public field, a record component, or a get/is getter)");
            }
            accessors.add(accessor);
            type = accessor instanceof Method m ? m.getReturnType() : ((Field) accessor).getType();
        }
        return new Placeholder(expression, index, List.copyOf(accessors));
    }

    private static int parameterIndex(String reference, Parameter[] parameters, String in) {
        if (reference.chars().allMatch(Character::isDigit) && !reference.isEmpty()) {
            int index = Integer.parseInt(reference);
            if (index >= parameters.length) {
                throw new IllegalArgumentException(in + ": {" + reference + "} but the method has " + parameters.length
                        + " parameter(s), numbered from 0");
            }
            return index;
        }
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].isNamePresent() && parameters[i].getName().equals(reference)) {
                return i;
            }
        }
        if (parameters.length > 0 && !parameters[0].isNamePresent()) {
            throw new IllegalArgumentException(in + ": {" + reference + "} names a parameter, but the class was compiled"
                    + " without parameter names: compile with -parameters (maven-compiler-plugin <parameters>true"
                    + "</parameters>) or refer to it by index, e.g. {0}");
        }
        List<String> names = new ArrayList<>();
        for (Parameter parameter : parameters) {
            names.add(parameter.getName());
        }
        throw new IllegalArgumentException(in + ": no parameter named '" + reference + "'; the parameters are " + names);
    }

    private static Member accessor(Class<?> type, String property) {
        if (property.isEmpty()) {
            return null;
        }
        String capitalized = Character.toUpperCase(property.charAt(0)) + property.substring(1);
        for (String name : new String[] {property, "get" + capitalized, "is" + capitalized}) {
            try {
                Method m = type.getMethod(name);
                if (m.getReturnType() != void.class && !Modifier.isStatic(m.getModifiers())
                        && m.getDeclaringClass() != Object.class) {
                    m.trySetAccessible();
                    return m;
                }
            } catch (NoSuchMethodException ignored) {
                // try the next form
            }
        }
        try {
            Field f = type.getField(property);
            if (Modifier.isStatic(f.getModifiers())) {
                return null;
            }
            f.trySetAccessible();
            return f;
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    private interface Part {
        void append(StringBuilder name, Object[] arguments, NameTemplate template);
    }

    private record Literal(String text) implements Part {
        @Override
        public void append(StringBuilder name, Object[] arguments, NameTemplate template) {
            name.append(text);
        }
    }

    private record Placeholder(String expression, int index, List<Member> accessors) implements Part {
        @Override
        public void append(StringBuilder name, Object[] arguments, NameTemplate template) {
            Object value = arguments[index];
            for (Member accessor : accessors) {
                if (value == null) {
                    break;
                }
                value = read(accessor, value);
            }
            if (value == null) {
                throw new IllegalArgumentException("@Locked(\"" + template.template + "\") on " + template.where + ": {"
                        + expression + "} is null, so the lock has no name");
            }
            name.append(value);
        }

        private static Object read(Member accessor, Object target) {
            try {
                return accessor instanceof Method m ? m.invoke(target) : ((Field) accessor).get(target);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                throw new IllegalStateException(cause);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + accessor + " for a lock name: " + e.getMessage(), e);
            }
        }
    }
}
